package io.sharegpu.core.policy;

import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a pod asks for, as the fragmentation measure sees it.
 *
 * @param cpuMilli host CPU
 * @param gpuMilli compute per GPU: 1..999 for a share, 1000 for whole GPUs, 0 for no GPU
 * @param gpuCount GPUs asked for: 1 for a share, k for k whole GPUs, 0 for none
 * @param models allowed GPU models, lower case, sorted; empty = any
 */
public record PodShape(long cpuMilli, int gpuMilli, int gpuCount, Set<String> models) {

  public PodShape {
    models = Set.copyOf(new TreeSet<>(models));
    if (gpuCount < 0 || gpuMilli < 0 || gpuMilli > GpuDemand.WHOLE_GPU_MILLI || cpuMilli < 0) {
      throw new IllegalArgumentException(
          "bad pod shape: cpu " + cpuMilli + "m, " + gpuCount + " x " + gpuMilli + "m");
    }
  }

  /**
   * The shape of a pod. A pod of several containers is summarised by its largest container (the
   * trace has one container per pod).
   */
  public static PodShape of(PodDemand pod) {
    GpuDemand big = pod.containers().get(0);
    for (GpuDemand d : pod.containers()) {
      if (d.computeMilli() > big.computeMilli()) {
        big = d;
      }
    }
    int milli = big.isShare() ? big.computeMilli() : GpuDemand.WHOLE_GPU_MILLI;
    int count = big.isShare() ? 1 : big.wholeGpus();
    return new PodShape(pod.cpuMilli(), milli, count, pod.models());
  }

  /** Total GPU compute asked for, in milli. */
  public long totalGpuMilli() {
    return (long) gpuMilli * gpuCount;
  }

  /** Returns true when a GPU of this model (any case) is allowed. */
  public boolean allows(String model) {
    if (models.isEmpty()) {
      return true;
    }
    String m = model.toLowerCase(java.util.Locale.ROOT);
    for (String s : models) {
      if (m.contains(s)) {
        return true;
      }
    }
    return false;
  }
}
