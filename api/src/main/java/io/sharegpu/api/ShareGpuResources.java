package io.sharegpu.api;

/**
 * Extended resources that nodes advertise and containers request.
 *
 * <p>Nodes advertise {@link #GPU_MILLI} = 1000 x GPUs and {@link #GPU_MEMORY} = total GPU memory in
 * MiB, so kube-scheduler, kubelet and {@code ResourceQuota} handle node-level sums; the extender
 * does the per-GPU fit.
 */
public final class ShareGpuResources {

  /**
   * Compute in thousandths of a GPU: below 1000 a share of one GPU, at or above 1000 a multiple of
   * 1000 meaning that many whole GPUs.
   */
  public static final String GPU_MILLI = "sharegpu.io/gpu-milli";

  /** GPU memory in MiB (a quantity such as {@code 10Gi} is also accepted on requests). */
  public static final String GPU_MEMORY = "sharegpu.io/gpu-memory";

  /** The prefix every ShareGPU resource name starts with. */
  public static final String PREFIX = "sharegpu.io/";

  private ShareGpuResources() {}
}
