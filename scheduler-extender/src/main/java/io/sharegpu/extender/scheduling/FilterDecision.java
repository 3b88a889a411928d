package io.sharegpu.extender.scheduling;

import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.Map;

/** What {@link SchedulingState#filter} decided for one pod. */
public sealed interface FilterDecision {

  /** The ledger is still being rebuilt from the cluster: no decision can be made yet. */
  record NotReady() implements FilterDecision {}

  /** The pod's GPU request cannot be placed as written; {@code message} is the answer's Error. */
  record Invalid(String message) implements FilterDecision {}

  /** The pod asks for no GPU: every candidate passes. */
  record NoGpu() implements FilterDecision {}

  /**
   * The candidates split by fit.
   *
   * @param demand the pod's demand
   * @param feasible nodes with GPUs that fit, in the order asked
   * @param failed node → reason, for nodes where evicting pods could make room
   * @param unresolvable node → reason, for nodes where no eviction helps (no GPUNode, wrong model,
   *     more memory or GPUs than the node has)
   * @param heldForNominees how many nodes fit but keep their room for a nominated pod
   *     <p>The collections are the decision's own (not copied: a filter may name thousands of
   *     nodes); nobody changes them after the decision is made.
   */
  record Filtered(
      PodDemand demand,
      List<String> feasible,
      Map<String, String> failed,
      Map<String, String> unresolvable,
      int heldForNominees)
      implements FilterDecision {}
}
