package io.sharegpu.core.placement;

import io.sharegpu.core.model.Gpu;

/**
 * Optional fast path for a {@link PlacementPolicy}: which GPU of a node it prefers for one
 * container, from plain numbers. {@link Placement} picks, for each container, the GPU with the
 * highest value (the lowest index on ties), then scores the whole grant once with {@link
 * PlacementPolicy#score}.
 */
public interface GpuPreference {

  /**
   * Higher is better.
   *
   * @param gpu the GPU
   * @param usedMilli compute already held on it (including this pod's earlier containers)
   * @param usedMemoryMib memory already held on it
   * @param addMilli compute the container would take (1000 for a whole GPU)
   * @param addMemoryMib memory the container would take
   */
  double gpuScore(Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib);
}
