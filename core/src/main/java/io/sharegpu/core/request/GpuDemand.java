package io.sharegpu.core.request;

/**
 * The GPU demand of one container: a request that passed the GPU request rules (they live in {@code
 * io.sharegpu.api.request.GpuRequestRules}, beside the pod request parser; core cannot depend on
 * api, so the constructor guards the same invariants, and {@code RequestRulesAgreementTest} in the
 * simulator keeps the two in step).
 *
 * @param container the container name
 * @param computeMilli 1..999 = a share of one GPU; 1000*k = k whole GPUs (exclusive)
 * @param memoryMib GPU memory in MiB over all the container's GPUs; 0 = default: for a share its
 *     part of the GPU's memory (share x memory, rounded down, so that shares adding up to the GPU
 *     fit its memory), for whole GPUs their whole memory
 * @param limitMilli compute cap per GPU: computeMilli..1000 for a share, 1000 for whole GPUs
 */
public record GpuDemand(String container, int computeMilli, long memoryMib, int limitMilli) {

  /** Thousandths of a GPU in one whole GPU. */
  public static final int WHOLE_GPU_MILLI = 1000;

  public GpuDemand {
    if (container.isEmpty()) {
      throw new IllegalArgumentException("container name must not be empty");
    }
    if (computeMilli <= 0) {
      throw new IllegalArgumentException(
          "container " + container + ": computeMilli must be > 0, got " + computeMilli);
    }
    if (computeMilli >= WHOLE_GPU_MILLI && computeMilli % WHOLE_GPU_MILLI != 0) {
      throw new IllegalArgumentException(
          "container "
              + container
              + ": computeMilli >= 1000 must be a multiple of 1000, got "
              + computeMilli);
    }
    if (memoryMib < 0) {
      throw new IllegalArgumentException(
          "container " + container + ": memoryMib must be >= 0, got " + memoryMib);
    }
    if (limitMilli < 0 || limitMilli > WHOLE_GPU_MILLI) {
      throw new IllegalArgumentException(
          "container " + container + ": limitMilli must be in 0..1000, got " + limitMilli);
    }
  }

  /** Returns a share of one GPU whose limit equals its request. */
  public static GpuDemand share(String container, int computeMilli, long memoryMib) {
    if (computeMilli >= WHOLE_GPU_MILLI) {
      throw new IllegalArgumentException(
          "container " + container + ": a share is 1..999m, got " + computeMilli);
    }
    return new GpuDemand(container, computeMilli, memoryMib, computeMilli);
  }

  /** Returns a demand for {@code count} whole GPUs. */
  public static GpuDemand whole(String container, int count, long memoryMib) {
    return new GpuDemand(container, count * WHOLE_GPU_MILLI, memoryMib, WHOLE_GPU_MILLI);
  }

  /** Returns true for a share of one GPU (1..999m). */
  public boolean isShare() {
    return computeMilli < WHOLE_GPU_MILLI;
  }

  /** Returns the number of whole GPUs asked for; 0 for a share. */
  public int wholeGpus() {
    return isShare() ? 0 : computeMilli / WHOLE_GPU_MILLI;
  }
}
