package io.sharegpu.api.assignment;

import java.util.List;

/**
 * The GPUs the extender assigned to one container.
 *
 * @param container the container name
 * @param gpuUuids the assigned GPUs, at least one; the container sees them as devices 0..k-1
 * @param memoryMibPerGpu GPU memory pinned on each of the GPUs, in MiB (0 = no memory limit)
 * @param limitMilli compute cap per GPU in thousandths, 1..1000 (1000 for whole GPUs)
 */
public record ContainerAssignment(
    String container, List<String> gpuUuids, long memoryMibPerGpu, int limitMilli) {

  public ContainerAssignment {
    gpuUuids = List.copyOf(gpuUuids);
    if (container.isEmpty()) {
      throw new IllegalArgumentException("container name must not be empty");
    }
    if (gpuUuids.isEmpty()) {
      throw new IllegalArgumentException("container " + container + " needs at least one GPU");
    }
    for (String uuid : gpuUuids) {
      if (uuid.isBlank() || uuid.contains(",")) {
        throw new IllegalArgumentException("invalid GPU UUID \"" + uuid + "\"");
      }
    }
    if (memoryMibPerGpu < 0) {
      throw new IllegalArgumentException("memoryMibPerGpu must be >= 0, got " + memoryMibPerGpu);
    }
    if (limitMilli < 1 || limitMilli > 1000) {
      throw new IllegalArgumentException("limitMilli must be in 1..1000, got " + limitMilli);
    }
  }

  /** Returns the memory over all the container's GPUs, in MiB. */
  public long memoryMib() {
    return memoryMibPerGpu * gpuUuids.size();
  }
}
