package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Ranks candidate placements. {@link Placement} proposes grants that fit; the policy says which it
 * prefers, on a node (which GPUs) and across nodes (which node).
 *
 * <p>A policy that also implements {@link GpuPreference} picks GPUs through it (fast: one call per
 * GPU, no objects); otherwise each candidate grant is scored with {@link #scoreCandidate}. The
 * chosen placement of each node is scored with {@link #scoreCandidate} too.
 */
public interface PlacementPolicy {

  /** Returns the name it is listed under in {@link io.sharegpu.core.policy.PolicyRegistry}. */
  String name();

  /** Higher is better. view = the node now; grant = candidate grant on that node. */
  double score(NodeView view, PodDemand pod, List<ContainerGrant> grant);

  /**
   * Returns the score of a candidate given as arrays: {@link #score} on {@code
   * candidate.grants(view, pod)}, which this default builds. A policy on the hot path overrides it
   * to score from the arrays without allocating, and must give exactly the same number as {@link
   * #score} (CandidateScoringTest checks every registered policy). The candidate is the engine's
   * reused object: read it during the call, keep nothing.
   */
  default double scoreCandidate(NodeView view, PodDemand pod, CandidateGrant candidate) {
    return score(view, pod, candidate.grants(view, pod));
  }

  /** Online learning: called once per pod that arrives (simulator) or is seen (extender). */
  default void observe(PodDemand pod) {}
}
