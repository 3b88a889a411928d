package io.sharegpu.controller.reconcile;

import static io.sharegpu.controller.model.SharePods.SETTINGS;
import static io.sharegpu.controller.model.SharePods.aSharePod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.controller.leader.ControllerLeadership;
import io.sharegpu.controller.leader.LeaseSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leader election of the controller against fabric8's CRUD mock API server, with real informers and
 * fabric8's elector on a short Lease (2 s, renew deadline 1 s, retry 200 ms): a follower does not
 * write; the leader that loses its Lease stops writing at once; the write guard alone keeps a
 * running controller from writing.
 */
@EnableKubernetesMockClient(crud = true)
class ControllerLeaderElectionIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String LEASE = "sharegpu-controller";

  static KubernetesClient client;

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ScheduledExecutorService otherReplica =
      Executors.newSingleThreadScheduledExecutor();
  private String ns = "";

  @BeforeAll
  static void applyCrds() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("..", "charts", "sharegpu", "crds"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yml")).toList()) {
        try (InputStream in = Files.newInputStream(file)) {
          client.apiextensions().v1().customResourceDefinitions().load(in).create();
        }
      }
    }
  }

  @BeforeEach
  void namespace(org.junit.jupiter.api.TestInfo info) {
    ns = "le-" + Integer.toHexString(Objects.hash(info.getDisplayName(), System.nanoTime()));
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
  }

  @AfterEach
  void stop() throws Exception {
    otherReplica.shutdownNow();
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  @Test
  void aFollowerKeepsItsCacheWarmButWritesNothingUntilItHoldsTheLease() {
    AtomicBoolean otherRenews = new AtomicBoolean(true);
    holdLease("other-replica", otherRenews);
    Replica follower = replica("follower");
    await().atMost(WAIT).until(follower.controller::isReady);

    create("notebook");
    await()
        .during(Duration.ofSeconds(3))
        .atMost(WAIT)
        .until(
            () ->
                client.pods().inNamespace(ns).withName("notebook").get() == null
                    && sharePod("notebook").getStatus() == null);
    assertThat(follower.leadership.isLeader()).isFalse();
    assertThat(follower.leadership.mayWrite()).isFalse();
    assertThat(follower.controller.isReconciling()).isFalse();
    assertThat(follower.leaderGauge()).isZero();
    assertThat(follower.leadership.leader()).contains("other-replica");

    // the other replica dies without releasing: after the lease duration the follower takes over
    otherRenews.set(false);
    await().atMost(WAIT).until(follower.leadership::isLeader);
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.pods().inNamespace(ns).withName("notebook").get() != null
                    && sharePod("notebook").getStatus() != null
                    && "notebook".equals(sharePod("notebook").getStatus().getPodName()));
    assertThat(follower.leaderGauge()).isEqualTo(1);
    assertThat(Objects.requireNonNull(lease()).getSpec().getHolderIdentity()).isEqualTo("follower");
    assertThat(follower.lost.get()).isZero();
  }

  @Test
  void aLeaderThatLosesTheLeaseStopsWritingAtOnce() {
    Replica leader = replica("leader");
    await().atMost(WAIT).until(leader.leadership::isLeader);
    create("first");
    await().atMost(WAIT).until(() -> client.pods().inNamespace(ns).withName("first").get() != null);
    await().atMost(WAIT).until(() -> sharePod("first").getStatus() != null);

    // another replica takes the Lease (as after a long pause of this one)
    holdLease("thief", new AtomicBoolean(true));
    await().atMost(WAIT).until(() -> leader.lost.get() == 1);
    assertThat(leader.leadership.isLeader()).isFalse();
    assertThat(leader.leadership.mayWrite()).isFalse();
    assertThat(leader.controller.isReconciling()).isFalse();
    assertThat(leader.leaderGauge()).isZero();

    create("second");
    client.pods().inNamespace(ns).withName("first").delete();
    await()
        .during(Duration.ofSeconds(3))
        .atMost(WAIT)
        .until(
            () ->
                client.pods().inNamespace(ns).withName("second").get() == null
                    && client.pods().inNamespace(ns).withName("first").get() == null
                    && sharePod("second").getStatus() == null);
    assertThat(Objects.requireNonNull(lease()).getSpec().getHolderIdentity()).isEqualTo("thief");
    assertThat(leader.lost.get()).as("told once").isEqualTo(1);
  }

  @Test
  void theWriteGuardAloneKeepsRunningWorkersFromWriting() {
    AtomicBoolean mayWrite = new AtomicBoolean(false);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    SharePodController controller = controller(meters, mayWrite::get);
    controller.start();
    toClose.add(controller::stop);
    await().atMost(WAIT).until(controller::isReady);

    create("guarded");
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(
            () ->
                client.pods().inNamespace(ns).withName("guarded").get() == null
                    && sharePod("guarded").getStatus() == null
                    && client.v1().events().inNamespace(ns).list().getItems().isEmpty());
    assertThat(meters.counter("sharegpu.controller.reconciles", "result", "not-leader").count())
        .isPositive();

    mayWrite.set(true); // the refused key was requeued, not dropped
    await()
        .atMost(WAIT)
        .until(() -> client.pods().inNamespace(ns).withName("guarded").get() != null);
  }

  /** One controller replica taking part in the election, as the application wires it. */
  private final class Replica {
    final SharePodController controller;
    final ControllerLeadership leadership;
    final MeterRegistry meters;
    final AtomicInteger lost = new AtomicInteger();

    Replica(String identity) {
      meters = new SimpleMeterRegistry();
      Holder holder = new Holder();
      leadership =
          new ControllerLeadership(
              client,
              new LeaseSettings(
                  ns,
                  LEASE,
                  identity,
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(1),
                  Duration.ofMillis(200)),
              meters,
              new ControllerLeadership.Listener() {
                @Override
                public void startedLeading() {
                  Objects.requireNonNull(holder.controller).startWorkers();
                }

                @Override
                public void lostLeadership() {
                  lost.incrementAndGet();
                  Objects.requireNonNull(holder.controller).stopWorkers();
                }
              });
      controller = controller(meters, leadership);
      holder.controller = controller;
      controller.startInformers();
      leadership.start();
      toClose.add(
          () -> {
            controller.stop();
            leadership.close();
          });
    }

    double leaderGauge() {
      return meters.get("sharegpu.controller.leader").gauge().value();
    }
  }

  private static final class Holder {
    @Nullable SharePodController controller;
  }

  private Replica replica(String identity) {
    return new Replica(identity);
  }

  private SharePodController controller(MeterRegistry meters, WriteGuard guard) {
    SharePodController c =
        new SharePodController(
            client,
            SETTINGS,
            List.of(ns),
            2,
            Duration.ofMinutes(10),
            Clock.systemUTC(),
            meters,
            guard);
    c.selectPreemptedEventsOnServer(false); // the mock server knows no reason= field selector
    return c;
  }

  /** Another replica holds the Lease (2 s) and renews it every 200 ms while {@code renewing}. */
  private void holdLease(String holder, AtomicBoolean renewing) {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    Lease lease =
        new LeaseBuilder()
            .withNewMetadata()
            .withName(LEASE)
            .withNamespace(ns)
            .endMetadata()
            .withNewSpec()
            .withHolderIdentity(holder)
            .withLeaseDurationSeconds(2)
            .withAcquireTime(now)
            .withRenewTime(now)
            .withLeaseTransitions(0)
            .endSpec()
            .build();
    if (lease() == null) {
      client.resource(lease).create();
    } else {
      renew(holder);
    }
    otherReplica.scheduleWithFixedDelay(
        () -> {
          if (renewing.get()) {
            try {
              renew(holder);
            } catch (RuntimeException e) {
              // a race with the elector's own update: the next round renews
            }
          }
        },
        200,
        200,
        TimeUnit.MILLISECONDS);
  }

  private void renew(String holder) {
    client
        .resources(Lease.class)
        .inNamespace(ns)
        .withName(LEASE)
        .edit(
            l ->
                new LeaseBuilder(l)
                    .editSpec()
                    .withHolderIdentity(holder)
                    .withLeaseDurationSeconds(2)
                    .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
                    .endSpec()
                    .build());
  }

  private @Nullable Lease lease() {
    return client.resources(Lease.class).inNamespace(ns).withName(LEASE).get();
  }

  private void create(String name) {
    SharePod sp = aSharePod(name, "0.25");
    sp.getMetadata().setNamespace(ns);
    sp.getMetadata().setUid(null);
    client.resources(SharePod.class).inNamespace(ns).resource(sp).create();
  }

  private SharePod sharePod(String name) {
    return client.resources(SharePod.class).inNamespace(ns).withName(name).get();
  }
}
