package io.sharegpu.controller.leader;

import java.time.Duration;

/**
 * Whether the leader may still write, judged from its own renewals rather than from the elector's
 * callback (which comes late and on another thread): a write is allowed while the last successful
 * renewal <em>started</em> less than the renew deadline ago, measured on this process's monotonic
 * clock. Others may take the Lease only once it has not been renewed for the (longer) lease
 * duration, so a write allowed here never overlaps a new leader's.
 *
 * <p>Example with renew deadline 10 s: renewal started at t=0 and succeeded; writes are allowed up
 * to t=9.999 s; a renewal started at t=2 s that succeeds moves the limit to t=12 s.
 */
final class LeaseFence {

  private final long deadlineNanos;
  private long renewedAtNanos;
  private boolean holding;

  LeaseFence(Duration renewDeadline) {
    this.deadlineNanos = renewDeadline.toNanos();
  }

  /** A renewal (or acquisition) that started at {@code startNanos} succeeded. */
  synchronized void renewed(long startNanos) {
    if (!holding || startNanos - renewedAtNanos > 0) {
      renewedAtNanos = startNanos;
    }
    holding = true;
  }

  /** The Lease is lost, released or given up: no more writes until the next renewal. */
  synchronized void lost() {
    holding = false;
  }

  /** Returns true if a write at {@code nowNanos} is allowed. */
  synchronized boolean mayWrite(long nowNanos) {
    return holding && nowNanos - renewedAtNanos < deadlineNanos;
  }
}
