package io.sharegpu.extender.bind;

import io.sharegpu.core.ledger.Allocation;
import org.jspecify.annotations.Nullable;

/**
 * What a bind did.
 *
 * @param allocation the GPUs bound (null for a failure, or a pod without a GPU request)
 * @param reason a short machine-readable reason for metrics ("bound" on success)
 * @param message the error for kube-scheduler; empty on success
 */
public record BindOutcome(@Nullable Allocation allocation, String reason, String message) {

  /** A successful bind. */
  public static BindOutcome bound(@Nullable Allocation allocation) {
    return new BindOutcome(allocation, "bound", "");
  }

  /** A failed bind. */
  public static BindOutcome failed(String reason, String message) {
    return new BindOutcome(null, reason, message);
  }

  /** True when the Binding was created. */
  public boolean ok() {
    return message.isEmpty();
  }
}
