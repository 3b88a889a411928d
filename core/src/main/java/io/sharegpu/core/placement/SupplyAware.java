package io.sharegpu.core.placement;

import java.util.Map;

/**
 * Optional for a {@link PlacementPolicy}: it is told the cluster's GPU inventory. {@link Placement}
 * calls {@link #supply} before it evaluates a pod whenever the ledger's nodes have changed since
 * the last call (a node added, replaced or removed; not when pods come or go), so that the policy
 * can weigh what a pod takes against what the cluster has. The inventory is the same for every node
 * while one pod is evaluated, so a {@link StateScored} policy stays one.
 */
public interface SupplyAware {

  /**
   * The cluster's GPU compute by GPU model, in milli: every healthy GPU that is not split into MIG
   * instances counts its compute under its model name as the node reports it.
   */
  void supply(Map<String, Long> computeMilliByModel);

  /**
   * What is still free on the nodes that report host CPU: their free host CPU and the free compute
   * of their GPUs (healthy, not cordoned, not split into MIG instances), in milli. {@link
   * Placement} passes it before it evaluates each pod, so it is the same for every node while one
   * pod is evaluated; it does not call it while no node reports host CPU (the extender's nodes do
   * not), and then the pass over the nodes that it takes is not made.
   */
  default void freeOnHostNodes(long freeCpuMilli, long freeGpuMilli) {}
}
