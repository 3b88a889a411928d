package io.sharegpu.extender.web;

/**
 * Turns core's prioritize scores into the scores the extender answers, so that kube-scheduler picks
 * the policy's choice.
 *
 * <p>Core's {@code Placement.prioritize} gives the policy's best node 10, the other nodes the pod
 * fits 1..9 in the policy's order (a close runner-up gets 8), and 0 to nodes it does not fit.
 * kube-scheduler adds {@code score × weight × 10} to the sum of its own score plugins (each 0..100
 * times its weight) and takes the highest total. Passed through unchanged, a runner-up at 8 would
 * trail the best by only {@code 2 × weight × 10} (100 with the example configuration's weight 5),
 * and the default plugins can make up more than that: {@code NodeResourcesFit} (least allocated CPU
 * and memory) and {@code NodeResourcesBalancedAllocation} favour emptier nodes, {@code
 * ImageLocality} gives up to 100 to nodes that already hold the pod's image.
 *
 * <p>So the best node keeps 10 and the other fitting nodes are squeezed into 1..3, in the same
 * order: the best leads every other node by at least {@code 7 × weight × 10} (350 with weight 5),
 * more than those three plugins can add together (at most 100 each). What can still overrule the
 * policy is what the pod or the cluster asks for explicitly: preferred node affinity, {@code
 * PreferNoSchedule} taints, topology spreading, inter-pod affinity.
 */
final class PriorityMapping {

  /** The highest score an extender may answer (kube-scheduler's {@code MaxExtenderPriority}). */
  static final int BEST = HostPriority.MAX_EXTENDER_PRIORITY;

  /** The highest score a node other than the policy's best gets. */
  static final int RUNNER_UP_MAX = 3;

  private PriorityMapping() {}

  /**
   * Maps one of core's scores (0..10) to the extender's: 10 stays 10, 1..9 become 1..3 (order
   * kept), 0 (or less) stays 0.
   */
  static int toExtenderScore(int placementScore) {
    if (placementScore >= BEST) {
      return BEST;
    }
    if (placementScore <= 0) {
      return 0;
    }
    // 1..9 -> 1..3: 1-3 -> 1, 4-6 -> 2, 7-9 -> 3
    return 1 + (placementScore - 1) * RUNNER_UP_MAX / (BEST - 1);
  }
}
