package io.sharegpu.controller.model;

import java.util.List;

/**
 * The GPU request of a SharePod in the units its pod uses.
 *
 * @param computeMilli thousandths of a GPU: 1..999 is a share of one GPU, 1000, 2000, ... whole
 *     GPUs
 * @param limitMilli compute cap of a share in thousandths (request..1000), 0 when not set or for
 *     whole GPUs
 * @param memoryMib GPU memory in MiB over all the pod's GPUs, 0 when not set
 * @param models allowed GPU models, empty means any
 */
public record GpuRequest(int computeMilli, int limitMilli, long memoryMib, List<String> models) {

  public GpuRequest {
    models = List.copyOf(models);
    if (computeMilli <= 0 || (computeMilli >= 1000 && computeMilli % 1000 != 0)) {
      throw new IllegalArgumentException("invalid computeMilli " + computeMilli);
    }
    if (limitMilli != 0 && (limitMilli < computeMilli || limitMilli > 1000)) {
      throw new IllegalArgumentException("invalid limitMilli " + limitMilli);
    }
    if (memoryMib < 0) {
      throw new IllegalArgumentException("invalid memoryMib " + memoryMib);
    }
  }

  /** Returns true for a share of one GPU (below 1000). */
  public boolean isShare() {
    return computeMilli < 1000;
  }
}
