package io.sharegpu.controller.reconcile;

/**
 * Thrown instead of a write when the {@link WriteGuard} refuses it: the reconcile ends there and
 * the key is requeued (the replica stops or, if its Lease was only late, tries again).
 */
final class NotLeaderException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  NotLeaderException(String message) {
    super(message);
  }
}
