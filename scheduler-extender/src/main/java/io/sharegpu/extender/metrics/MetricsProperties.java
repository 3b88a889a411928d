package io.sharegpu.extender.metrics;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration under {@code sharegpu.metrics}.
 *
 * <p>Per-node and cluster series are always exported (four series per node, a few for the cluster).
 * Per-GPU series are three per GPU, about 120,000 on a cluster of 5,000 nodes with 8 GPUs, which
 * costs every scrape; they are off unless asked for.
 *
 * @param perGpu export {@code sharegpu_gpu_*} series, one set per GPU (default false)
 * @param perGpuMaxSeries the most per-GPU series exported, 3 per GPU; GPUs past the cap get none
 *     and a warning is logged once; 0 = no cap (default)
 */
@ConfigurationProperties(prefix = "sharegpu.metrics")
public record MetricsProperties(boolean perGpu, int perGpuMaxSeries) {

  /** Per-GPU series off, no cap. */
  public static final MetricsProperties DEFAULTS = new MetricsProperties(false, 0);

  /** Checks the cap. */
  public MetricsProperties {
    if (perGpuMaxSeries < 0) {
      throw new IllegalArgumentException(
          "sharegpu.metrics.per-gpu-max-series must be >= 0, got " + perGpuMaxSeries);
    }
  }
}
