package io.sharegpu.agent.usage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the pod (and container) a process belongs to from its {@code /proc/PID/cgroup} lines.
 *
 * <p>Handles cgroup v1 and v2 with the cgroupfs and systemd drivers, e.g.
 *
 * <ul>
 *   <li>{@code
 *       0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b_..._9f.slice/cri-containerd-<64
 *       hex>.scope} → pod {@code 1a2b-...-9f}, container {@code <64 hex>}
 *   <li>{@code 4:memory:/kubepods/besteffort/pod1a2b-...-9f/<64 hex>} → the same
 * </ul>
 */
public final class PodCgroups {

  private static final Pattern POD_UID =
      Pattern.compile(
          "pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})");
  private static final Pattern CONTAINER_ID =
      Pattern.compile("(?:^|[-/])([0-9a-f]{64})(?:\\.scope)?$");

  private final Path hostProc;

  /**
   * @param hostProc the host's /proc (mounted into the agent's container, or /proc with hostPID)
   */
  public PodCgroups(Path hostProc) {
    this.hostProc = hostProc;
  }

  /** Returns the pod and container of a host PID, empty when it is not in a pod or has exited. */
  public Optional<PodContainer> of(int pid) {
    try {
      return parse(Files.readString(hostProc.resolve(Integer.toString(pid)).resolve("cgroup")));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Parses the content of a {@code /proc/PID/cgroup} file. */
  public static Optional<PodContainer> parse(String cgroupFile) {
    for (String line : cgroupFile.split("\\R")) {
      int colon = line.indexOf(':', line.indexOf(':') + 1);
      if (colon < 0) {
        continue;
      }
      String path = line.substring(colon + 1);
      if (!path.contains("kubepods")) {
        continue;
      }
      Matcher pod = POD_UID.matcher(path);
      if (!pod.find()) {
        continue;
      }
      String uid = pod.group(1).replace('_', '-');
      String last = path.substring(path.lastIndexOf('/') + 1);
      Matcher container = CONTAINER_ID.matcher(last);
      String containerId = container.find() ? container.group(1) : "";
      return Optional.of(new PodContainer(uid, containerId));
    }
    return Optional.empty();
  }

  /**
   * A pod UID and container id (64 hex digits, as in the pod's {@code
   * containerStatuses[].containerID} after the {@code runtime://} prefix; empty when the cgroup
   * path names no container).
   */
  public record PodContainer(String podUid, String containerId) {}
}
