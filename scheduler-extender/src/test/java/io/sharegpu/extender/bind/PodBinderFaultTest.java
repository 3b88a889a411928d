package io.sharegpu.extender.bind;

import static io.sharegpu.extender.Fixtures.addNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.testcluster.TestPods;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * API-server faults during bind (scripted mock server): a 409 creating the Binding (a stale pod
 * version is retried once with the fresh pod), a 500 and a timeout creating the Binding. No
 * reservation may leak and no GPU may be given twice.
 */
class PodBinderFaultTest {

  private KubernetesMockServer server;

  private static final String POD_PATH = "/api/v1/namespaces/ns/pods/a";
  private static final String BINDING_PATH = "/api/v1/namespaces/ns/bindings";

  private ClusterFixture view;
  private KubernetesClient fastClient;

  @BeforeEach
  void setUp() {
    server = new KubernetesMockServer(false);
    server.init();
    view =
        new ClusterFixture(
            null,
            io.sharegpu.core.placement.PlacementPolicies.byName("binpack", 1),
            Duration.ofMillis(800));
    view.markReady();
    addNode(view, "t4", "Tesla T4", 1, 15360);
    fastClient =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(server.createClient().getConfiguration())
                    .withRequestTimeout(700)
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build();
  }

  @AfterEach
  void tearDown() {
    fastClient.close();
    view.close();
    server.destroy();
  }

  /** Pod ns/a asking for a whole GPU, as the API server first returns it (version 7). */
  private static TestPods.Builder podA() {
    return Fixtures.share("ns", "a", "uid-a", 1000, 0).resourceVersion("7");
  }

  private static Pod pending() {
    return podA().build();
  }

  private PodBinder binder() {
    return new PodBinder(
        fastClient, view.feed(), view.state(), new PodEvents(null), ExtenderMetrics.inMemory());
  }

  private Collection<Allocation> allocations() {
    return view.withLedger(l -> List.copyOf(l.allocations()));
  }

  @Test
  void conflictOnTheBindingReleasesAndAnswersError() {
    server.expect().get().withPath(POD_PATH).andReturn(200, pending()).always();
    server
        .expect()
        .post()
        .withPath(BINDING_PATH)
        .andReturn(409, new StatusBuilder().withCode(409).withReason("Conflict").build())
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).isFalse();
    assertThat(out.message()).contains("conflict");
    assertThat(allocations()).isEmpty();
    // the GPU is free again for another pod
    Fixtures.assertInvariant(view);
  }

  @Test
  void aConflictFromAStaleVersionIsRetriedOnceWithTheFreshPod() throws Exception {
    Pod newer = podA().resourceVersion("8").build();
    server.expect().get().withPath(POD_PATH).andReturn(200, pending()).once();
    server.expect().get().withPath(POD_PATH).andReturn(200, newer).always();
    server
        .expect()
        .post()
        .withPath(BINDING_PATH)
        .andReturn(409, new StatusBuilder().withCode(409).withReason("Conflict").build())
        .once();
    server
        .expect()
        .post()
        .withPath(BINDING_PATH)
        .andReturn(201, new StatusBuilder().build())
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).as(out.message()).isTrue();
    assertThat(allocations()).hasSize(1);
    // each Binding carries the uid and the resourceVersion it was decided on, and the annotations
    List<Binding> posted = new ArrayList<>();
    for (int i = server.getRequestCount(); i > 0; i--) {
      RecordedRequest r = server.takeRequest(1, TimeUnit.SECONDS);
      if (r != null && r.getMethod().equals("POST")) {
        posted.add(
            fastClient.getKubernetesSerialization().unmarshal(r.getUtf8Body(), Binding.class));
      }
    }
    assertThat(posted)
        .extracting(b -> b.getMetadata().getResourceVersion())
        .containsExactly("7", "8");
    assertThat(posted).allSatisfy(b -> assertThat(b.getMetadata().getUid()).isEqualTo("uid-a"));
    assertThat(posted.get(1).getMetadata().getAnnotations())
        .containsKey(io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_GPUS);
  }

  @Test
  void serverErrorCreatingTheBindingOnAnUnboundPodReleases() {
    server.expect().get().withPath(POD_PATH).andReturn(200, pending()).always();
    server
        .expect()
        .post()
        .withPath(BINDING_PATH)
        .andReturn(500, new StatusBuilder().withCode(500).withMessage("etcd down").build())
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).isFalse();
    assertThat(out.message()).contains("Binding");
    assertThat(allocations()).isEmpty();
  }

  @Test
  void serverErrorWhenThePodGotBoundAnywayIsSuccess() {
    Pod bound = podA().nodeName("t4").build();
    server.expect().get().withPath(POD_PATH).andReturn(200, pending()).once();
    server.expect().get().withPath(POD_PATH).andReturn(200, bound).always();
    server
        .expect()
        .post()
        .withPath(BINDING_PATH)
        .andReturn(500, new StatusBuilder().withCode(500).build())
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).as(out.message()).isTrue();
    assertThat(allocations()).hasSize(1);
  }

  @Test
  void timeoutCreatingTheBindingNeverDoubleBooksAndDoesNotLeak() {
    // read by the binder
    server.expect().get().withPath(POD_PATH).andReturn(200, pending()).once();
    server
        .expect()
        .post()
        .delay(3, TimeUnit.SECONDS)
        .withPath(BINDING_PATH)
        .andReturn(201, new StatusBuilder().build())
        .always();
    // after the timeout the pod cannot be read either: the outcome is unknown
    server
        .expect()
        .get()
        .delay(3, TimeUnit.SECONDS)
        .withPath(POD_PATH)
        .andReturn(200, pending())
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).isFalse();
    assertThat(out.reason()).as(out.message()).isEqualTo("binding-unknown");
    // the GPU stays held while the outcome is unknown: a second pod cannot take it
    assertThat(allocations()).hasSize(1);
    var other =
        io.sharegpu.extender.mapping.DemandMapper.toDemand(
            "ns/b",
            "uid-b",
            io.sharegpu.api.request.PodGpuRequest.of(
                io.sharegpu.api.request.ContainerGpuRequest.wholeGpus("main", 1, 0)));
    assertThat(view.reserve(other, "t4")).isEmpty();
    Fixtures.assertInvariant(view);
    // ... and is released when the reservation TTL passes without the pod showing up bound
    view.passReservationTtl();
    assertThat(allocations()).isEmpty();
  }

  @Test
  void aConflictBecauseThisBindsOwnBindingLandedIsSuccess() {
    // The first Binding POST reached the API server but its answer was lost; the client's retry
    // meets the pod bound (409). The pod carries this bind's assignment: that is success, and the
    // GPUs stay held (before the fix they were released while the pod was bound with them).
    AtomicReference<Binding> landed = new AtomicReference<>();
    server
        .expect()
        .get()
        .withPath(POD_PATH)
        .andReply(
            200,
            r ->
                landed.get() == null
                    ? pending()
                    : podA()
                        .resourceVersion("8")
                        .annotations(landed.get().getMetadata().getAnnotations())
                        .nodeName("t4")
                        .build())
        .always();
    server
        .expect()
        .post()
        .withPath(BINDING_PATH)
        .andReply(
            409,
            r -> {
              landed.set(
                  fastClient
                      .getKubernetesSerialization()
                      .unmarshal(r.getUtf8Body(), Binding.class));
              return new StatusBuilder().withCode(409).withReason("Conflict").build();
            })
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).as(out.message()).isTrue();
    assertThat(allocations()).hasSize(1);
    Fixtures.assertInvariant(view);
  }

  @Test
  void aConflictWithThePodBoundByAnotherAssignmentStillFails() {
    Pod elsewhere =
        podA()
            .resourceVersion("8")
            .annotation(io.sharegpu.api.ShareGpuAnnotations.ASSIGNED_GPUS, "main=GPU-x")
            .nodeName("t4")
            .build();
    server.expect().get().withPath(POD_PATH).andReturn(200, pending()).once();
    server.expect().get().withPath(POD_PATH).andReturn(200, elsewhere).always();
    server
        .expect()
        .post()
        .withPath(BINDING_PATH)
        .andReturn(409, new StatusBuilder().withCode(409).withReason("Conflict").build())
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).isFalse();
    assertThat(allocations()).isEmpty();
  }

  @Test
  void aBindingWithNoAnswerOnAnUnboundPodKeepsTheGpusHeldUntilTheTtl() {
    // the POST may still be on its way to the API server: releasing now could let another pod
    // take GPUs that the late Binding then assigns to this one
    server.expect().get().withPath(POD_PATH).andReturn(200, pending()).always();
    server
        .expect()
        .post()
        .delay(3, TimeUnit.SECONDS)
        .withPath(BINDING_PATH)
        .andReturn(201, new StatusBuilder().build())
        .always();
    BindOutcome out = binder().bind("ns", "a", "uid-a", "t4");
    assertThat(out.ok()).isFalse();
    assertThat(out.reason()).as(out.message()).isEqualTo("binding-unknown");
    assertThat(allocations()).hasSize(1);
    view.clock().advance(Duration.ofMillis(700));
    view.state().expireReservations(view.clock().instant());
    assertThat(allocations()).as("held until the TTL passes").hasSize(1);
    view.passReservationTtl();
    assertThat(allocations()).isEmpty();
  }
}
