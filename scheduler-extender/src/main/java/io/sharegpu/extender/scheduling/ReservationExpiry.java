package io.sharegpu.extender.scheduling;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases expired reservations between verbs (the verbs also expire them before they decide), so
 * GPUs reserved for a pod that never came back are free for the next pod within a quarter of the
 * TTL (at most a second) after it passed.
 */
public final class ReservationExpiry implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ReservationExpiry.class);

  private final ScheduledExecutorService loop;

  private ReservationExpiry(ScheduledExecutorService loop) {
    this.loop = loop;
  }

  /** Starts releasing the expired reservations of {@code state} at the time {@code clock} says. */
  public static ReservationExpiry start(SchedulingState state, Duration ttl, Clock clock) {
    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "reservation-expiry");
              t.setDaemon(true);
              return t;
            });
    long period = Math.max(10, Math.min(1000, ttl.toMillis() / 4));
    loop.scheduleWithFixedDelay(
        () -> {
          try {
            state.expireReservations(clock.instant());
          } catch (RuntimeException e) {
            LOG.error("releasing expired reservations failed", e);
          }
        },
        period,
        period,
        TimeUnit.MILLISECONDS);
    return new ReservationExpiry(loop);
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }
}
