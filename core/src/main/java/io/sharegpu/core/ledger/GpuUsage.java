package io.sharegpu.core.ledger;

import io.sharegpu.core.model.Gpu;
import java.util.List;

/**
 * How much of one GPU is held.
 *
 * @param gpu the GPU
 * @param usedMilli compute held, thousandths of a full GPU
 * @param usedMemoryMib memory held
 * @param exclusive true when a pod holds it whole
 * @param podKeys the pods holding a part of it, in commit order
 */
public record GpuUsage(
    Gpu gpu, int usedMilli, long usedMemoryMib, boolean exclusive, List<String> podKeys) {

  public GpuUsage {
    podKeys = List.copyOf(podKeys);
  }

  /** Returns the compute not held (never negative). */
  public int freeMilli() {
    return Math.max(0, gpu.computeMilli() - usedMilli);
  }

  /** Returns the memory not held (never negative). */
  public long freeMemoryMib() {
    return Math.max(0, gpu.memoryMib() - usedMemoryMib);
  }

  /** Returns true when no pod holds any part of it. */
  public boolean isIdle() {
    return podKeys.isEmpty();
  }
}
