package io.sharegpu.extender.preempt;

import java.util.Map;

/** What {@link Preemption#decide} decided for one preempt call. */
public sealed interface PreemptDecision {

  /** The ledger is still being rebuilt: preempt nothing. */
  record NotReady() implements PreemptDecision {}

  /** The pod's GPU request is invalid: preempt nothing. */
  record Invalid(String message) implements PreemptDecision {}

  /** The pod asks for no GPU: kube-scheduler's victims stand. */
  record NoGpu() implements PreemptDecision {}

  /**
   * The victims per node, in the offered order of nodes; nodes where no set of lower-priority pods
   * makes room are left out (empty: preempt nowhere).
   */
  record Chosen(Map<String, Preemption.Victims> victims) implements PreemptDecision {}
}
