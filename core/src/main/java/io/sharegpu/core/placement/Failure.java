package io.sharegpu.core.placement;

import org.jspecify.annotations.Nullable;

/**
 * Where the evaluation of a pod on a node stopped, for the words: the {@link Refusal}, the failing
 * container (its position in the pod) and, for whole GPUs, how many idle GPUs it found. With {@link
 * #keepState} the evaluation also keeps what the pod's earlier containers took, per GPU.
 */
final class Failure {
  boolean keepState;
  Refusal refusal = Refusal.NONE;
  int container = -1;
  int available;
  int @Nullable [] addMilli;
  long @Nullable [] addMem;
  int @Nullable [] takenBy;

  void reset() {
    refusal = Refusal.NONE;
    container = -1;
    available = 0;
    addMilli = null;
    addMem = null;
    takenBy = null;
  }

  void set(Refusal refusal, int container, int available) {
    this.refusal = refusal;
    this.container = container;
    this.available = available;
  }
}
