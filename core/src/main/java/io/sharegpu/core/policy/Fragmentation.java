package io.sharegpu.core.policy;

import io.sharegpu.core.placement.NodeView;

/** FGD's fragmentation measure, for reports (the policies use it internally). */
public final class Fragmentation {
  private Fragmentation() {}

  /**
   * The expected fragment of a node for a workload, in milli-GPU: for each shape, all free GPU
   * compute if the shape cannot run on the node, else the free compute of the GPUs with less free
   * than the shape asks per GPU; weighted by the shape's probability.
   */
  public static double of(NodeView view, Workload workload) {
    return NodeState.of(view).fragment(workload);
  }

  /** Free GPU compute of the node in milli (unhealthy and whole-held GPUs count 0). */
  public static long freeMilli(NodeView view) {
    return NodeState.of(view).totalFree();
  }
}
