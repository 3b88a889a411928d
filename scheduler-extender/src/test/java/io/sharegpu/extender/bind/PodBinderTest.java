package io.sharegpu.extender.bind;

import static io.sharegpu.extender.Fixtures.addNode;
import static io.sharegpu.extender.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.scheduling.BindTicket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The binder against fabric8's CRUD mock API server. */
@EnableKubernetesMockClient(crud = true)
class PodBinderTest {

  static KubernetesMockServer server;
  static KubernetesClient client;

  private ClusterFixture view;
  private PodBinder binder;

  @BeforeEach
  void setUp() {
    view = Fixtures.view("binpack");
    addNode(view, "h100", "NVIDIA H100 80GB HBM3", 8, 81559);
    binder =
        new PodBinder(
            client, view.feed(), view.state(), new PodEvents(null), ExtenderMetrics.inMemory());
  }

  @AfterEach
  void tearDown() {
    view.close();
    client.pods().inAnyNamespace().delete();
  }

  private int allocationCount() {
    Integer count = view.withLedger(l -> l.allocations().size());
    return count;
  }

  private Optional<Allocation> held(String uid) {
    Optional<Allocation> a = view.withLedger(l -> l.allocation(uid));
    return a;
  }

  private Pod create(String name, int milli, long mem) {
    return client.resource(pod("ns", name, "", milli, mem)).create();
  }

  @Test
  void bindCreatesTheBindingWithTheAssignmentAnnotationsAndCommits() {
    Pod p = create("a", 250, 10240);
    BindOutcome out = binder.bind("ns", "a", p.getMetadata().getUid(), "h100");
    assertThat(out.ok()).as(out.message()).isTrue();
    // the API server copies the Binding's annotations onto the pod in the write that binds it
    // (ExtenderE2E checks that on a real one); the mock server only stores the Binding
    Binding binding = client.bindings().inNamespace("ns").withName("a").get();
    assertThat(binding.getTarget().getName()).isEqualTo("h100");
    Map<String, String> annotations = binding.getMetadata().getAnnotations();
    String gpus = annotations.get(ShareGpuAnnotations.ASSIGNED_GPUS);
    assertThat(gpus).startsWith("GPU-h100-");
    assertThat(annotations)
        .containsEntry(ShareGpuAnnotations.ASSIGNED_MEMORY_MIB, "10240")
        .containsEntry(ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE, "25")
        .containsEntry(ShareGpuAnnotations.ASSIGNED_NODE, "h100");
    Optional<Allocation> a = view.withLedger(l -> l.allocation(p.getMetadata().getUid()));
    assertThat(a.map(Allocation::state)).contains(AllocationState.BOUND);
    assertThat(a.get().uuids()).containsExactly(gpus);
    // nothing is written to the pod itself before the Binding
    Pod after = client.pods().inNamespace("ns").withName("a").get();
    assertThat(after.getMetadata().getAnnotations())
        .doesNotContainKey(ShareGpuAnnotations.ASSIGNED_GPUS);
  }

  @Test
  void aSecondBindOfTheSamePodWhileTheFirstIsInFlightIsRefused() {
    Pod p = create("twice", 250, 0);
    String uid = p.getMetadata().getUid();
    PodDemand demand = PodDemand.share("ns/twice", uid, 250, 0);
    try (BindTicket first = view.state().beginBind(demand, "h100")) {
      assertThat(first.allocation()).isPresent();
      BindOutcome second = binder.bind("ns", "twice", uid, "h100");
      assertThat(second.ok()).isFalse();
      assertThat(second.message()).contains("in progress");
    }
    assertThat(binder.bind("ns", "twice", uid, "h100").ok()).isTrue();
    assertThat(allocationCount()).isEqualTo(1);
  }

  @Test
  void losingBindLeadershipBeforeTheBindingReleasesEverything() {
    java.util.concurrent.atomic.AtomicInteger checks =
        new java.util.concurrent.atomic.AtomicInteger();
    PodBinder losing =
        new PodBinder(
            client,
            view.feed(),
            view.state(),
            new PodEvents(null),
            ExtenderMetrics.inMemory(),
            () -> checks.incrementAndGet() == 1);
    Pod p = create("a", 250, 10240);
    BindOutcome out = losing.bind("ns", "a", p.getMetadata().getUid(), "h100");
    assertThat(out.ok()).isFalse();
    assertThat(out.message()).startsWith("no bind leader:");
    assertThat(checks.get()).isEqualTo(2);
    assertThat(held(p.getMetadata().getUid())).isEmpty();
    Pod after = client.pods().inNamespace("ns").withName("a").get();
    assertThat(after.getSpec().getNodeName()).isNull();
    // the mock server keeps merge-patch nulls as null values; the API server removes the keys
    assertThat(after.getMetadata().getAnnotations().get(ShareGpuAnnotations.ASSIGNED_GPUS))
        .isNull();
  }

  @Test
  void aReplicaThatIsNotTheLeaderWritesNothing() {
    PodBinder follower =
        new PodBinder(
            client,
            view.feed(),
            view.state(),
            new PodEvents(null),
            ExtenderMetrics.inMemory(),
            () -> false);
    Pod p = create("a", 250, 0);
    BindOutcome out = follower.bind("ns", "a", p.getMetadata().getUid(), "h100");
    assertThat(out.reason()).isEqualTo("not-leader");
    assertThat(allocationCount()).isZero();
    Pod after = client.pods().inNamespace("ns").withName("a").get();
    assertThat(
            after.getMetadata().getAnnotations() == null
                || !after
                    .getMetadata()
                    .getAnnotations()
                    .containsKey(ShareGpuAnnotations.ASSIGNED_GPUS))
        .isTrue();
  }

  @Test
  void recreatedPodIsNotBound() {
    create("a", 250, 0);
    BindOutcome out = binder.bind("ns", "a", "some-old-uid", "h100");
    assertThat(out.ok()).isFalse();
    assertThat(out.message()).contains("recreated");
    assertThat(allocationCount()).isZero();
  }

  @Test
  void missingPodIsAnError() {
    BindOutcome out = binder.bind("ns", "ghost", "u", "h100");
    assertThat(out.message()).contains("does not exist");
  }

  @Test
  void aPodThatNoLongerFitsIsRefusedWithTheReason() {
    Pod whole = create("whole", 8000, 0);
    assertThat(binder.bind("ns", "whole", whole.getMetadata().getUid(), "h100").ok()).isTrue();
    Pod p = create("late", 100, 0);
    BindOutcome out = binder.bind("ns", "late", p.getMetadata().getUid(), "h100");
    assertThat(out.ok()).isFalse();
    assertThat(out.message()).contains("no longer fit");
    assertThat(held(p.getMetadata().getUid())).isEmpty();
    assertThat(
            client.pods().inNamespace("ns").withName("late").get().getMetadata().getAnnotations())
        .doesNotContainKey(ShareGpuAnnotations.ASSIGNED_GPUS);
  }

  @Test
  void unknownNodeIsRefused() {
    Pod p = create("a", 100, 0);
    BindOutcome out = binder.bind("ns", "a", p.getMetadata().getUid(), "nowhere");
    assertThat(out.ok()).isFalse();
    assertThat(allocationCount()).isZero();
  }

  @Test
  void sixtyFourBindsRacingForOneEightGpuNodeNeverOverCommit() throws Exception {
    int n = 64;
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      // 300m each: 3 fit per GPU (900m), so 24 of 64 can be placed on 8 GPUs
      pods.add(create("race-" + i, 300, 0));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<BindOutcome>> futures = new ArrayList<>();
    for (Pod p : pods) {
      futures.add(
          pool.submit(
              () -> {
                start.await();
                return binder.bind(
                    "ns", p.getMetadata().getName(), p.getMetadata().getUid(), "h100");
              }));
    }
    start.countDown();
    int ok = 0;
    Set<String> failedUids = new HashSet<>();
    for (int i = 0; i < n; i++) {
      BindOutcome out = futures.get(i).get();
      if (out.ok()) {
        ok++;
      } else {
        failedUids.add(pods.get(i).getMetadata().getUid());
      }
    }
    pool.shutdown();
    assertThat(ok).isEqualTo(24);
    long used = Fixtures.assertInvariant(view);
    assertThat(used).isEqualTo(24 * 300L);
    Map<String, Allocation> held =
        view.withLedger(
            l -> {
              Map<String, Allocation> m = new java.util.HashMap<>();
              l.allocations().forEach(a -> m.put(a.podUid(), a));
              return m;
            });
    assertThat(held).hasSize(24);
    assertThat(held.values()).allMatch(a -> a.state() == AllocationState.BOUND);
    assertThat(held.keySet()).doesNotContainAnyElementsOf(failedUids);
  }
}
