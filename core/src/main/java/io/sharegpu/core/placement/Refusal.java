package io.sharegpu.core.placement;

/** Where the evaluation of a pod on a node stopped; {@link #NONE} while it fits. */
enum Refusal {
  NONE,
  /** The node's free host CPU is below the pod's. */
  HOST_CPU,
  /** The node's free host memory is below the pod's. */
  HOST_MEMORY,
  /** No GPU takes one of the pod's shares. */
  SHARE,
  /** Fewer idle GPUs than one of the pod's whole-GPU containers asks for. */
  WHOLE;

  /** True when a GPU container failed (the words then look at the GPUs). */
  boolean onGpus() {
    return this == SHARE || this == WHOLE;
  }
}
