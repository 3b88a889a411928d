package io.sharegpu.core.ledger;

/**
 * A commit was refused because it would break the invariant (a GPU over its compute or memory, a
 * whole GPU shared), names an unknown node or GPU, or repeats a pod UID. The message says which in
 * words.
 */
public final class OverCommitException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OverCommitException(String message) {
    super(message);
  }
}
