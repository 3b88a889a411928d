package io.sharegpu.core.preemption;

/**
 * Why a pod does not fit a node, as far as preemption is concerned: capacity that other pods hold
 * (evicting some could make room: kube-scheduler's {@code Unschedulable}, reported in {@code
 * FailedNodes}) or a request the node can never meet, however idle (its {@code
 * UnschedulableAndUnresolvable}, reported in {@code FailedAndUnresolvableNodes}, so that preemption
 * skips the node).
 */
public sealed interface Shortfall permits Shortfall.Resolvable, Shortfall.Unresolvable {

  /** Returns one line saying why. */
  String reason();

  /** Returns true when evicting pods from the node could let the pod fit. */
  boolean preemptionCouldHelp();

  /**
   * Pods hold the capacity the pod needs; evicting some of them could make room.
   *
   * @param reason e.g. {@code other pods hold the GPU capacity the pod needs}
   */
  record Resolvable(String reason) implements Shortfall {
    @Override
    public boolean preemptionCouldHelp() {
      return true;
    }
  }

  /**
   * The node cannot take the pod even with every pod evicted.
   *
   * @param reason e.g. {@code needs 4 whole GPUs; the node has 2 the pod may use}
   */
  record Unresolvable(String reason) implements Shortfall {
    @Override
    public boolean preemptionCouldHelp() {
      return false;
    }
  }
}
