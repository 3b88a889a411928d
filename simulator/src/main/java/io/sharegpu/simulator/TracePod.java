package io.sharegpu.simulator;

import io.sharegpu.api.request.GpuRequestRules;
import io.sharegpu.core.policy.PodShape;
import java.util.Set;

/**
 * A row of a trace pod list.
 *
 * @param name pod name
 * @param cpuMilli requested CPU in thousandths of a core
 * @param memoryMib requested memory
 * @param numGpu GPUs requested (0 = none)
 * @param gpuMilli compute per GPU: below 1000 only for a share of one GPU
 * @param models allowed GPU models (from {@code gpu_spec}); empty = any
 */
public record TracePod(
    String name, long cpuMilli, long memoryMib, int numGpu, int gpuMilli, Set<String> models) {

  public TracePod {
    models = Set.copyOf(models);
    if (cpuMilli < 0 || memoryMib < 0 || numGpu < 0 || gpuMilli < 0 || gpuMilli > 1000) {
      throw new IllegalArgumentException("pod " + name + ": bad request");
    }
    if (numGpu > 1 && gpuMilli != GpuRequestRules.WHOLE_GPU_MILLI) {
      throw new IllegalArgumentException(
          "pod " + name + ": " + numGpu + " GPUs must be whole (gpu_milli 1000), got " + gpuMilli);
    }
    if ((numGpu == 0) != (gpuMilli == 0)) {
      throw new IllegalArgumentException(
          "pod " + name + ": num_gpu " + numGpu + " and gpu_milli " + gpuMilli + " disagree");
    }
    if (numGpu > 0) {
      int request = numGpu * gpuMilli;
      GpuRequestRules.computeProblem(request)
          .ifPresent(
              p -> {
                throw new IllegalArgumentException("pod " + name + ": GPU request " + request + p);
              });
    }
    for (String model : models) {
      if (!GpuRequestRules.isModel(model)) {
        throw new IllegalArgumentException(
            "pod " + name + ": gpu_spec \"" + model + "\": " + GpuRequestRules.MODEL_SYNTAX);
      }
    }
  }

  /** GPU compute requested in total, in milli. */
  public long gpuRequestMilli() {
    return (long) numGpu * gpuMilli;
  }

  /** The shape the fragmentation measure uses. */
  public PodShape shape() {
    return new PodShape(cpuMilli, gpuMilli, numGpu, models);
  }
}
