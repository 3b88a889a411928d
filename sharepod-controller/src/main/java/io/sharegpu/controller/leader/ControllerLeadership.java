package io.sharegpu.controller.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.controller.reconcile.WriteGuard;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's part in the election of the controller's leader, through fabric8's Lease-based
 * {@code LeaderElector}. On winning the Lease the {@link Listener} starts reconciling; on losing it
 * (another replica holds it, or it could not be renewed within the renew deadline) the listener is
 * told once and this replica never leads again: the application stops reconciling and exits, so
 * that Kubernetes restarts it as a fresh follower. A follower that never led keeps running for the
 * Lease.
 *
 * <p>As a {@link WriteGuard} it allows writes only while the last renewal is younger than the renew
 * deadline ({@link LeaseFence}), independent of when the elector's callback runs. Gauge {@code
 * sharegpu_controller_leader}: 1 while leading, else 0.
 */
public final class ControllerLeadership implements WriteGuard, AutoCloseable {

  /** What the application does on a change of leadership; called on the elector's thread. */
  public interface Listener {

    /** This replica holds the Lease: start reconciling. */
    void startedLeading();

    /** This replica lost the Lease it held (not on {@link #close}): stop writing now. */
    void lostLeadership();
  }

  private static final Logger log = LoggerFactory.getLogger(ControllerLeadership.class);

  private final KubernetesClient client;
  private final LeaseSettings settings;
  private final Listener listener;
  private final LeaseFence fence;
  private final LongSupplier nanos;
  private final AtomicInteger leaderGauge = new AtomicInteger();
  private volatile boolean leading;
  private volatile boolean led;
  private volatile boolean closed;
  private volatile @Nullable String leader;
  private volatile @Nullable CompletableFuture<?> election;

  public ControllerLeadership(
      KubernetesClient client, LeaseSettings settings, MeterRegistry meters, Listener listener) {
    this.client = client;
    this.settings = settings;
    this.listener = listener;
    this.fence = new LeaseFence(settings.renewDeadline());
    this.nanos = System::nanoTime;
    Gauge.builder("sharegpu.controller.leader", leaderGauge, AtomicInteger::get)
        .description("1 while this replica holds the controller's Lease and reconciles, else 0")
        .register(meters);
  }

  /** Joins the election in the background; returns at once. */
  public synchronized void start() {
    if (closed || election != null && !election.isDone()) {
      return;
    }
    var config =
        new LeaderElectionConfigBuilder()
            .withName("sharegpu-controller")
            .withLock(
                new FencingLock(
                    new LeaseLock(settings.namespace(), settings.name(), settings.identity()),
                    fence,
                    nanos))
            .withLeaseDuration(settings.leaseDuration())
            .withRenewDeadline(settings.renewDeadline())
            .withRetryPeriod(settings.retryPeriod())
            .withReleaseOnCancel(true)
            .withLeaderCallbacks(
                new LeaderCallbacks(this::startedLeading, this::stoppedLeading, this::newLeader))
            .build();
    CompletableFuture<?> f = client.leaderElector().withConfig(config).build().start();
    election = f;
    log.info(
        "running for the controller's Lease {} as {} (lease {} s, renew deadline {} s, retry {} s)",
        settings.lease(),
        settings.identity(),
        settings.leaseDuration().toMillis() / 1000.0,
        settings.renewDeadline().toMillis() / 1000.0,
        settings.retryPeriod().toMillis() / 1000.0);
    f.whenComplete(
        (v, e) -> {
          stoppedLeading();
          if (!closed && !led) {
            // the elector gave up before this replica ever led (e.g. the API server was away)
            log.warn(
                "election for the Lease {} ended ({}); running again",
                settings.lease(),
                e == null ? "done" : e.toString());
            CompletableFuture.runAsync(
                this::start,
                CompletableFuture.delayedExecutor(
                    settings.retryPeriod().toMillis(), TimeUnit.MILLISECONDS));
          }
        });
  }

  @Override
  public boolean mayWrite() {
    return leading && !closed && fence.mayWrite(nanos.getAsLong());
  }

  /** Returns true while this replica holds the Lease (as the elector last said). */
  public boolean isLeader() {
    return leading;
  }

  /** Returns this replica's holder identity. */
  public String identity() {
    return settings.identity();
  }

  /** Returns the holder of the Lease as last seen, if any. */
  public Optional<String> leader() {
    return Optional.ofNullable(leader).filter(s -> !s.isEmpty());
  }

  /** Returns {@code namespace/name} of the Lease. */
  public String lease() {
    return settings.lease();
  }

  private synchronized void startedLeading() {
    if (closed || led) {
      return; // a replica that lost the Lease exits; it does not lead again
    }
    leading = true;
    led = true;
    leader = settings.identity();
    leaderGauge.set(1);
    log.info(
        "leader: this replica ({}) holds the Lease {} and reconciles",
        settings.identity(),
        settings.lease());
    listener.startedLeading();
  }

  private void stoppedLeading() {
    boolean lost;
    synchronized (this) {
      fence.lost();
      lost = leading;
      leading = false;
      leaderGauge.set(0);
    }
    if (!lost) {
      return;
    }
    if (closed) {
      log.info("leader: this replica ({}) released the Lease {}", identity(), settings.lease());
    } else {
      log.warn(
          "leader: this replica ({}) lost the Lease {}; it stops reconciling",
          identity(),
          settings.lease());
      listener.lostLeadership();
    }
  }

  private void newLeader(@Nullable String holder) {
    leader = holder;
    if (holder != null && !holder.isEmpty() && !settings.identity().equals(holder)) {
      log.info("leader: {} holds the Lease {}", holder, settings.lease());
    }
  }

  /**
   * Leaves the election: stops allowing writes at once, then releases the Lease if this replica
   * holds it, so that a follower takes over within a retry period instead of a lease duration.
   */
  @Override
  public void close() {
    CompletableFuture<?> f;
    synchronized (this) {
      closed = true;
      fence.lost();
      f = election;
    }
    if (f != null) {
      f.cancel(true);
    }
    stoppedLeading();
  }
}
