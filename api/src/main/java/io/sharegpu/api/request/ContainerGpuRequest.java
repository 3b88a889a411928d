package io.sharegpu.api.request;

/**
 * The GPU request of one container.
 *
 * @param container the container name
 * @param computeMilli compute in thousandths of a GPU: 1..999 is a share of one GPU, 1000, 2000,
 *     ... are that many whole GPUs
 * @param memoryMib GPU memory in MiB over all the container's GPUs; 0 when not given
 * @param limitMilli compute cap per GPU in thousandths: for a share computeMilli..1000 (defaults to
 *     computeMilli), for whole GPUs 1000
 */
public record ContainerGpuRequest(
    String container, int computeMilli, long memoryMib, int limitMilli) {

  /** Thousandths of a GPU in one whole GPU ({@link GpuRequestRules#WHOLE_GPU_MILLI}). */
  public static final int WHOLE_GPU_MILLI = GpuRequestRules.WHOLE_GPU_MILLI;

  /** Checks the {@link GpuRequestRules}. */
  public ContainerGpuRequest {
    if (container.isEmpty()) {
      throw new IllegalArgumentException("container name must not be empty");
    }
    GpuRequestRules.computeProblem(computeMilli)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("computeMilli " + computeMilli + p);
            });
    if (memoryMib < 0) {
      throw new IllegalArgumentException("memoryMib must be >= 0, got " + memoryMib);
    }
    GpuRequestRules.limitProblem(computeMilli, limitMilli)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("limitMilli " + limitMilli + p);
            });
  }

  /** Returns a share request whose limit equals its request. */
  public static ContainerGpuRequest share(String container, int computeMilli, long memoryMib) {
    return new ContainerGpuRequest(container, computeMilli, memoryMib, computeMilli);
  }

  /** Returns a request for {@code count} whole GPUs. */
  public static ContainerGpuRequest wholeGpus(String container, int count, long memoryMib) {
    return new ContainerGpuRequest(container, count * WHOLE_GPU_MILLI, memoryMib, WHOLE_GPU_MILLI);
  }

  /** Returns true for 1000, 2000, ... (whole GPUs, exclusive); false for a share of one GPU. */
  public boolean wholeGpus() {
    return GpuRequestRules.isWholeGpus(computeMilli);
  }

  /** Returns how many GPUs the container gets: 1 for a share, computeMilli / 1000 otherwise. */
  public int gpuCount() {
    return wholeGpus() ? computeMilli / WHOLE_GPU_MILLI : 1;
  }
}
