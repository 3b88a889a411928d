package io.sharegpu.extender.scheduling;

import io.sharegpu.core.ledger.Allocation;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One bind in flight, from {@link SchedulingState#beginBind}: the GPUs it chose, held in the ledger
 * for it alone. Closing the ticket releases them unless {@link #commit()} (the Binding was created)
 * or {@link #keepReserved()} (its outcome is unknown) came first, so no exit of a bind, exceptions
 * included, can leak them. A refused ticket (another bind of the pod is in flight, or the pod holds
 * bound GPUs) and a ticket whose GPUs no longer fit hold nothing and end the bind when closed. Used
 * by one thread.
 */
public final class BindTicket implements AutoCloseable {

  private final SchedulingState state;
  private final String podUid;
  private final @Nullable String refusal;
  private final @Nullable String noFit;
  private final @Nullable Allocation allocation;
  private boolean ended;

  private BindTicket(
      SchedulingState state,
      String podUid,
      @Nullable String refusal,
      @Nullable String noFit,
      @Nullable Allocation allocation) {
    this.state = state;
    this.podUid = podUid;
    this.refusal = refusal;
    this.noFit = noFit;
    this.allocation = allocation;
    this.ended = refusal != null; // a refused bind never started: nothing to end
  }

  static BindTicket refused(SchedulingState state, String podUid, String why) {
    return new BindTicket(state, podUid, why, null, null);
  }

  static BindTicket noFit(SchedulingState state, String podUid, String why) {
    return new BindTicket(state, podUid, null, why, null);
  }

  static BindTicket holding(SchedulingState state, Allocation allocation) {
    return new BindTicket(state, allocation.podUid(), null, null, allocation);
  }

  /**
   * Why the bind may not start (another bind of this pod has not ended, or it already holds GPUs),
   * empty when it started.
   */
  public Optional<String> refusal() {
    return Optional.ofNullable(refusal);
  }

  /** Why no GPUs of the node fit the pod any more, empty when they do (or the bind was refused). */
  public Optional<String> noFit() {
    return Optional.ofNullable(noFit);
  }

  /** The GPUs held for this bind; empty when refused or nothing fits. */
  public Optional<Allocation> allocation() {
    return Optional.ofNullable(allocation);
  }

  /** The Binding was created: the GPUs become the pod's (BOUND). */
  public void commit() {
    if (allocation == null) {
      throw new IllegalStateException("bind of pod " + podUid + " holds no GPUs to commit");
    }
    end(true);
  }

  /**
   * The Binding may or may not have been created: the GPUs stay held as a reservation until the
   * informer feed shows the pod bound or the reservation TTL passes.
   */
  public void keepReserved() {
    if (!ended) {
      ended = true;
      state.endBindUncertain(podUid);
    }
  }

  /** Ends the bind; releases its GPUs unless it was committed or kept reserved. */
  @Override
  public void close() {
    end(false);
  }

  private void end(boolean success) {
    if (!ended) {
      ended = true;
      state.endBind(podUid, success);
    }
  }
}
