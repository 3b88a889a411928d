package io.sharegpu.kubectl.report;

import java.util.List;

/**
 * A pod's GPU assignment, one row per GPU container.
 *
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param node the node it is bound to (or assigned to)
 * @param phase the pod's phase
 * @param containers the GPU containers with their assignment
 */
public record PodReport(
    String namespace, String name, String node, String phase, List<ContainerRow> containers) {

  public PodReport {
    containers = List.copyOf(containers);
  }

  /**
   * One GPU container's assignment.
   *
   * @param container the container name
   * @param gpuUuids the GPUs it was given
   * @param shareMilli the requested compute in thousandths (k × 1000 for k whole GPUs)
   * @param limitMilli the compute cap per GPU in thousandths
   * @param memoryMib the memory over all its GPUs, in MiB
   * @param mpsThreadPercentage {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE}, empty when not written
   * @param mpsPinnedMemLimit {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}, empty when not written
   */
  public record ContainerRow(
      String container,
      List<String> gpuUuids,
      int shareMilli,
      int limitMilli,
      long memoryMib,
      String mpsThreadPercentage,
      String mpsPinnedMemLimit) {

    public ContainerRow {
      gpuUuids = List.copyOf(gpuUuids);
    }
  }
}
