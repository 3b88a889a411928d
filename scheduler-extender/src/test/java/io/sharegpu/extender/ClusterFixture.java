package io.sharegpu.extender;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.bind.BindRouter;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.preempt.DisruptionBudgets;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.extender.scheduling.Nominations;
import io.sharegpu.extender.scheduling.SchedulingState;
import io.sharegpu.extender.web.ExtenderHandler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A scheduling state and the informer feed that feeds it, as the extender wires them, with a clock
 * tests move by hand. Without a client the feed is driven through its event methods.
 */
public final class ClusterFixture implements AutoCloseable {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final Duration ttl;
  private final SchedulingState state;
  private final ClusterFeed feed;

  public ClusterFixture(
      @Nullable KubernetesClient client, PlacementPolicy policy, Duration reservationTtl) {
    this.ttl = reservationTtl;
    this.state = new SchedulingState(policy, reservationTtl, clock);
    this.feed = new ClusterFeed(client, state);
  }

  /** A fixture with no client and the named policy, ready. */
  public static ClusterFixture ready(String policy) {
    ClusterFixture c =
        new ClusterFixture(null, PlacementPolicies.byName(policy, 1), Duration.ofSeconds(30));
    c.markReady();
    return c;
  }

  public SchedulingState state() {
    return state;
  }

  public ClusterFeed feed() {
    return feed;
  }

  public MutableClock clock() {
    return clock;
  }

  /** The extender's verbs over this fixture, binding through {@code binder}. */
  public ExtenderHandler handler(BindRouter binder, PodEvents events, ExtenderMetrics metrics) {
    return new ExtenderHandler(
        state,
        binder,
        events,
        metrics,
        null,
        new Preemption(state, feed, DisruptionBudgets.none(), Clock.systemUTC()));
  }

  /** Moves the clock past the reservation TTL and lets the state expire what is due. */
  public void passReservationTtl() {
    clock.advance(ttl.plusMillis(1));
    state.expireReservations(clock.instant());
  }

  public void markReady() {
    state.markReady();
  }

  public boolean isReady() {
    return state.isReady();
  }

  public void start() {
    feed.start();
  }

  public void onNode(Node n) {
    feed.onNode(n);
  }

  public void onNodeDelete(Node n) {
    feed.onNodeDelete(n);
  }

  public void onGpuNode(GPUNode g) {
    feed.onGpuNode(g);
  }

  public void onGpuNodeDelete(GPUNode g) {
    feed.onGpuNodeDelete(g);
  }

  public void onPod(Pod p) {
    feed.onPod(p);
  }

  public void onPodDelete(Pod p) {
    feed.onPodDelete(p);
  }

  public Optional<Pod> cachedPod(String namespace, String name) {
    return feed.cachedPod(namespace, name);
  }

  public <T> T withLedger(Function<Ledger, T> f) {
    return state.withLedger(f);
  }

  public Optional<Allocation> reserve(PodDemand pod, String node) {
    return state.reserve(pod, node);
  }

  public long roomVersion() {
    return state.roomVersion();
  }

  public Nominations nominations() {
    return state.nominations();
  }

  @Override
  public void close() {
    feed.close();
    state.close();
  }
}
