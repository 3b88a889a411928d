package io.sharegpu.api.assignment;

import static io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_AT;
import static io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_GPUS;
import static io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_MEMORY_MIB;
import static io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_NODE;
import static io.sharegpu.api.ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE;
import static io.sharegpu.api.ShareGpuAnnotations.MPS_PINNED_MEM_LIMIT;
import static io.sharegpu.api.ShareGpuAnnotations.forContainer;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * Writes a {@link PodAssignment} as pod annotations and reads it back.
 *
 * <p>For a pod with one container "main" on one GPU with 10240 MiB and limit 500 it writes:
 *
 * <pre>
 * sharegpu.io/assigned-gpus                       GPU-a
 * sharegpu.io/assigned-memory-mib                 10240
 * sharegpu.io/mps-active-thread-percentage        50
 * sharegpu.io/mps-pinned-mem-limit                0=10240M
 * sharegpu.io/assigned-gpus.main                  GPU-a      (same four keys per container)
 * sharegpu.io/assigned-node                       node-1
 * sharegpu.io/assigned-at                         2026-12-02T22:00:00Z
 * </pre>
 *
 * The pod-level MPS keys repeat the first container's values, so a pod with a single GPU container
 * reads the same from either form. A container without a memory limit (memoryMibPerGpu 0) gets no
 * pinned-memory key, so its {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} is empty.
 */
public final class AssignmentAnnotations {

  private AssignmentAnnotations() {}

  /** Returns every assignment annotation of {@code a}, pod level and per container. */
  public static Map<String, String> encode(PodAssignment a, Instant at) {
    Map<String, String> annotations = new LinkedHashMap<>();
    ContainerAssignment first = a.containers().get(0);
    annotations.put(ASSIGNED_GPUS, String.join(",", a.gpuUuids()));
    annotations.put(ASSIGNED_MEMORY_MIB, Long.toString(a.memoryMib()));
    annotations.put(MPS_ACTIVE_THREAD_PERCENTAGE, Integer.toString(threadPercentage(first)));
    if (first.memoryMibPerGpu() > 0) {
      annotations.put(MPS_PINNED_MEM_LIMIT, pinnedMemLimit(first));
    }
    for (ContainerAssignment c : a.containers()) {
      String name = c.container();
      annotations.put(forContainer(ASSIGNED_GPUS, name), String.join(",", c.gpuUuids()));
      annotations.put(forContainer(ASSIGNED_MEMORY_MIB, name), Long.toString(c.memoryMib()));
      annotations.put(
          forContainer(MPS_ACTIVE_THREAD_PERCENTAGE, name), Integer.toString(threadPercentage(c)));
      if (c.memoryMibPerGpu() > 0) {
        annotations.put(forContainer(MPS_PINNED_MEM_LIMIT, name), pinnedMemLimit(c));
      }
    }
    annotations.put(ASSIGNED_NODE, a.nodeName());
    annotations.put(ASSIGNED_AT, DateTimeFormatter.ISO_INSTANT.format(at));
    return annotations;
  }

  /**
   * Reads the assignment of a pod, or empty if it was never assigned.
   *
   * <p>Each GPU container is read from its per-container keys; a pod with a single GPU container
   * may carry only the pod-level keys (pods assigned before per-container keys existed). Containers
   * without keys are left out. The limit comes back from the MPS thread percentage, so it is
   * rounded up to a multiple of 10 (limit 255 is written as 26 % and read as 260).
   *
   * @param nodeName the pod's node; when empty, the {@code assigned-node} annotation is used
   * @param gpuContainers the names of the pod's GPU containers, in order
   */
  public static Optional<PodAssignment> decode(
      String nodeName, Map<String, String> annotations, List<String> gpuContainers) {
    String node = nodeName.isEmpty() ? annotations.getOrDefault(ASSIGNED_NODE, "") : nodeName;
    if (node.isEmpty()) {
      return Optional.empty();
    }
    List<ContainerAssignment> containers = new ArrayList<>();
    for (String name : gpuContainers) {
      if (annotations.containsKey(forContainer(ASSIGNED_GPUS, name))) {
        readContainer(
                name,
                annotations.get(forContainer(ASSIGNED_GPUS, name)),
                annotations.get(forContainer(ASSIGNED_MEMORY_MIB, name)),
                annotations.get(forContainer(MPS_ACTIVE_THREAD_PERCENTAGE, name)),
                annotations.get(forContainer(MPS_PINNED_MEM_LIMIT, name)))
            .ifPresent(containers::add);
      } else if (gpuContainers.size() == 1) {
        readContainer(
                name,
                annotations.get(ASSIGNED_GPUS),
                annotations.get(ASSIGNED_MEMORY_MIB),
                annotations.get(MPS_ACTIVE_THREAD_PERCENTAGE),
                annotations.get(MPS_PINNED_MEM_LIMIT))
            .ifPresent(containers::add);
      }
    }
    return containers.isEmpty()
        ? Optional.empty()
        : Optional.of(new PodAssignment(node, containers));
  }

  /** Returns ceil(limitMilli / 10): 500 gives 50, 255 gives 26, 1000 (whole GPUs) gives 100. */
  static int threadPercentage(ContainerAssignment c) {
    return (c.limitMilli() + 9) / 10;
  }

  /** Returns e.g. "0=10240M" for one GPU, "0=81559M,1=81559M" for two. */
  static String pinnedMemLimit(ContainerAssignment c) {
    return IntStream.range(0, c.gpuUuids().size())
        .mapToObj(i -> i + "=" + c.memoryMibPerGpu() + "M")
        .collect(Collectors.joining(","));
  }

  private static Optional<ContainerAssignment> readContainer(
      String name,
      @Nullable String gpus,
      @Nullable String memoryMib,
      @Nullable String percentage,
      @Nullable String pinned) {
    if (gpus == null) {
      return Optional.empty();
    }
    List<String> uuids =
        Arrays.stream(gpus.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (uuids.isEmpty()) {
      return Optional.empty();
    }
    long total = parseLong(memoryMib, -1);
    long perGpu = total >= 0 ? total / uuids.size() : pinnedPerGpu(pinned);
    long percent = parseLong(percentage, 100);
    int limit = (int) Math.max(1, Math.min(1000, percent * 10));
    return Optional.of(new ContainerAssignment(name, uuids, Math.max(0, perGpu), limit));
  }

  /** Reads the first device's value of e.g. "0=10240M"; 0 if absent or unreadable. */
  private static long pinnedPerGpu(@Nullable String pinned) {
    if (pinned == null) {
      return 0;
    }
    String first = pinned.split(",")[0].trim();
    int eq = first.indexOf('=');
    if (eq < 0 || !first.endsWith("M")) {
      return 0;
    }
    return parseLong(first.substring(eq + 1, first.length() - 1), 0);
  }

  private static long parseLong(@Nullable String value, long fallback) {
    if (value == null) {
      return fallback;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return fallback; // written by someone else; decode is tolerant by contract
    }
  }
}
