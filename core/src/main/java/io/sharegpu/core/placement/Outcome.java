package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A pod evaluated on one node: the placement it would get and the policy's score, or {@link
 * #NO_FIT}. The placement is kept packed ({@link CandidateGrant#packed}); its grant objects are
 * built only when asked for ({@link #grants}: the chosen node of {@code choose}/{@code place}, or
 * {@code explain}), not for every node a filter scores. Not thread-safe.
 */
final class Outcome {
  /** The pod does not fit the node. */
  static final Outcome NO_FIT = new Outcome(null, null, null, 0, Double.NaN);

  private final @Nullable NodeUsage usage;
  private final @Nullable PodDemand pod;
  private final long @Nullable [] placement;
  private final long onlySlot;
  private final double score;
  private @Nullable List<ContainerGrant> grants;

  /**
   * The pod fits: {@code candidate}, complete, scored {@code score} on {@code usage}, kept as
   * {@link CandidateGrant#packed} (a placement of one slot, the common case, without an array).
   */
  static Outcome of(NodeUsage usage, PodDemand pod, CandidateGrant candidate, double score) {
    return candidate.slots() == 1
        ? new Outcome(usage, pod, null, candidate.packed(0), score)
        : new Outcome(usage, pod, candidate.packed(), 0, score);
  }

  /**
   * @param usage the node evaluated (its GPUs' UUIDs name the grants)
   * @param placement the complete placement, {@link CandidateGrant#packed}, or null for one slot
   * @param onlySlot that slot when {@code placement} is null
   */
  private Outcome(
      @Nullable NodeUsage usage,
      @Nullable PodDemand pod,
      long @Nullable [] placement,
      long onlySlot,
      double score) {
    this.usage = usage;
    this.pod = pod;
    this.placement = placement;
    this.onlySlot = onlySlot;
    this.score = score;
  }

  boolean fits() {
    return this != NO_FIT;
  }

  double score() {
    return score;
  }

  /** The grants, in the pod's container order; empty for {@link #NO_FIT}. */
  List<ContainerGrant> grants() {
    List<ContainerGrant> g = grants;
    if (g == null) {
      g =
          usage == null || pod == null
              ? List.of()
              : List.copyOf(
                  CandidateGrant.grants(
                      usage, pod, placement != null ? placement : new long[] {onlySlot}));
      grants = g;
    }
    return g;
  }
}
