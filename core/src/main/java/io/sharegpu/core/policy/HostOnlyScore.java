package io.sharegpu.core.policy;

import io.sharegpu.core.placement.NodeView;

/**
 * Scores a node for a pod that asks for host CPU and memory only (no GPU). Such pods do not go
 * through {@link io.sharegpu.core.placement.Placement}; the simulator places them with this so that
 * the CPU they take shapes later GPU placements as it does in the trace.
 */
public interface HostOnlyScore {

  /**
   * Higher is better; the caller has checked that the node has the CPU and memory.
   *
   * @param view the node now
   * @param cpuMilli host CPU the pod asks for
   * @param memoryMib host memory the pod asks for
   */
  double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib);
}
