package io.sharegpu.core.ledger;

/** The life of an allocation. In every state the allocation holds its GPUs. */
public enum AllocationState {
  /** Chosen by the scheduler, not yet bound (in flight). */
  RESERVED,
  /** Bound to its node (the pod runs or is about to). */
  BOUND,
  /** The pod is being deleted; its processes may still use the GPUs. */
  TERMINATING
}
