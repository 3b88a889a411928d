package io.sharegpu.core.request;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a pod asks for.
 *
 * @param podKey {@code namespace/name}
 * @param podUid the pod's UID; one allocation per UID
 * @param containers the GPU containers, at least one, names unique; each is its own allocation, all
 *     on one node
 * @param models allowed GPU models, lower-case; empty = any; a GPU matches when its product name
 *     (lower-cased) contains one of them
 * @param pinnedUuids when not empty, only these GPUs may be used
 * @param excludedUuids these GPUs must not be used
 * @param cpuMilli host CPU in thousandths of a core; 0 = not tracked
 * @param memoryMib host memory in MiB; 0 = not tracked
 */
public record PodDemand(
    String podKey,
    String podUid,
    List<GpuDemand> containers,
    Set<String> models,
    Set<String> pinnedUuids,
    Set<String> excludedUuids,
    long cpuMilli,
    long memoryMib) {

  public PodDemand {
    if (podUid.isEmpty()) {
      throw new IllegalArgumentException("pod " + podKey + ": uid must not be empty");
    }
    containers = List.copyOf(containers);
    if (containers.isEmpty()) {
      throw new IllegalArgumentException("pod " + podKey + " has no GPU container");
    }
    Set<String> names = new HashSet<>();
    for (GpuDemand c : containers) {
      if (!names.add(c.container())) {
        throw new IllegalArgumentException(
            "pod " + podKey + ": container " + c.container() + " appears twice");
      }
    }
    Set<String> lower = new HashSet<>();
    for (String m : models) {
      String s = m.trim().toLowerCase(Locale.ROOT);
      if (!s.isEmpty()) {
        lower.add(s);
      }
    }
    models = Set.copyOf(lower);
    pinnedUuids = Set.copyOf(pinnedUuids);
    excludedUuids = Set.copyOf(excludedUuids);
    if (cpuMilli < 0 || memoryMib < 0) {
      throw new IllegalArgumentException("pod " + podKey + ": host CPU and memory must be >= 0");
    }
  }

  /** Returns a pod with one container {@code main} asking for a share of one GPU. */
  public static PodDemand share(String podKey, String podUid, int milli, long memoryMib) {
    return of(podKey, podUid, GpuDemand.share("main", milli, memoryMib));
  }

  /** Returns a pod with the given containers and no constraints. */
  public static PodDemand of(String podKey, String podUid, GpuDemand... containers) {
    return new PodDemand(podKey, podUid, List.of(containers), Set.of(), Set.of(), Set.of(), 0, 0);
  }

  /** Returns a copy allowing only GPUs whose model contains one of {@code models}. */
  public PodDemand withModels(Set<String> models) {
    return new PodDemand(
        podKey, podUid, containers, models, pinnedUuids, excludedUuids, cpuMilli, memoryMib);
  }

  /** Returns a copy that may use only {@code pinned} GPUs. */
  public PodDemand withPinned(Set<String> pinned) {
    return new PodDemand(
        podKey, podUid, containers, models, pinned, excludedUuids, cpuMilli, memoryMib);
  }

  /** Returns a copy that must not use {@code excluded} GPUs. */
  public PodDemand withExcluded(Set<String> excluded) {
    return new PodDemand(
        podKey, podUid, containers, models, pinnedUuids, excluded, cpuMilli, memoryMib);
  }

  /** Returns a copy with host CPU and memory demands. */
  public PodDemand withHost(long cpuMilli, long memoryMib) {
    return new PodDemand(
        podKey, podUid, containers, models, pinnedUuids, excludedUuids, cpuMilli, memoryMib);
  }

  /** Returns the sum of computeMilli over the containers. */
  public int totalComputeMilli() {
    int sum = 0;
    for (GpuDemand c : containers) {
      sum += c.computeMilli();
    }
    return sum;
  }
}
