package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Ranks candidate placements. {@link Placement} proposes grants that fit; the policy says which it
 * prefers, on a node (which GPUs) and across nodes (which node).
 *
 * <p>A policy that also implements {@link GpuPreference} picks GPUs through it (fast: one call per
 * GPU, no objects); otherwise each candidate grant is scored with {@link #score}.
 */
public interface PlacementPolicy {

  /** Returns the name it is listed under in {@link io.sharegpu.core.policy.PolicyRegistry}. */
  String name();

  /** Higher is better. view = the node now; grant = candidate grant on that node. */
  double score(NodeView view, PodDemand pod, List<ContainerGrant> grant);

  /** Online learning: called once per pod that arrives (simulator) or is seen (extender). */
  default void observe(PodDemand pod) {}
}
