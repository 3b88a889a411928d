/**
 * ShareGPU scheduler extender: the scheduling state. {@link
 * io.sharegpu.extender.scheduling.SchedulingState} owns the lock, the ledger, the reservations and
 * the binds in flight, and offers one call per verb; {@link
 * io.sharegpu.extender.scheduling.BindTicket} holds a bind's GPUs until it commits or closes.
 */
@NullMarked
package io.sharegpu.extender.scheduling;

import org.jspecify.annotations.NullMarked;
