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
  static final Outcome NO_FIT = new Outcome(null, null, null, Double.NaN);

  private final @Nullable NodeUsage usage;
  private final @Nullable PodDemand pod;
  private final long @Nullable [] placement;
  private final double score;
  private @Nullable List<ContainerGrant> grants;

  /**
   * @param usage the node evaluated (its GPUs' UUIDs name the grants)
   * @param placement the complete placement, {@link CandidateGrant#packed}
   */
  Outcome(
      @Nullable NodeUsage usage,
      @Nullable PodDemand pod,
      long @Nullable [] placement,
      double score) {
    this.usage = usage;
    this.pod = pod;
    this.placement = placement;
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
          usage == null || pod == null || placement == null
              ? List.of()
              : List.copyOf(CandidateGrant.grants(usage, pod, placement));
      grants = g;
    }
    return g;
  }
}
