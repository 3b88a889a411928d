package io.sharegpu.extender.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.bench.ClusterObjects;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The view's informers against fabric8's CRUD mock API server. */
@EnableKubernetesMockClient(crud = true)
class ClusterFeedInformerTest {

  static KubernetesMockServer server;
  static KubernetesClient client;

  private static void pause() {
    try {
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int allocationCount(ClusterFixture view) {
    Integer n = view.withLedger(l -> l.allocations().size());
    return n;
  }

  @Test
  void readyOnlyOnceEveryListedAssignmentIsInTheLedgerAndTheCacheHoldsReducedCopies() {
    ClusterObjects cluster = new ClusterObjects(20, 8, 200);
    for (int i = 0; i < 20; i++) {
      client.resource(cluster.node(i)).create();
      client.resource(cluster.gpuNode(i)).create();
    }
    int pods = cluster.boundGpuPods() + cluster.plainPods();
    for (int i = 0; i < pods; i++) {
      Pod p = cluster.pod(i);
      p.getMetadata().setResourceVersion(null);
      client.resource(p).create();
    }
    ClusterFixture view =
        new ClusterFixture(client, PlacementPolicies.byName("binpack", 1), Duration.ofSeconds(30));
    // Another thread keeps taking the ledger lock, so the informer's event handler falls behind
    // the initial list; it records the ledger's size the first time it sees the view ready.
    AtomicInteger atReady = new AtomicInteger(-1);
    Thread contender =
        new Thread(
            () -> {
              while (atReady.get() < 0) {
                view.withLedger(
                    l -> {
                      if (view.isReady()) {
                        atReady.set(l.allocations().size());
                      }
                      pause();
                      return null;
                    });
                pause();
              }
            });
    try {
      contender.start();
      view.start();
      assertThat(view.isReady()).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> atReady.get() >= 0);
      // every bound pod counts from the moment the view is ready, not only once the informer's
      // queued events get to the handler
      assertThat(atReady.get()).isEqualTo(cluster.boundGpuPods());
      assertThat(allocationCount(view)).isEqualTo(cluster.boundGpuPods());

      Pod first = cluster.pod(1);
      String ns = first.getMetadata().getNamespace();
      String name = first.getMetadata().getName();
      Pod cached = view.cachedPod(ns, name).orElseThrow();
      assertThat(cached.getMetadata().getManagedFields()).isEmpty();
      assertThat(cached.getSpec().getVolumes()).isEmpty();
      assertThat(cached.getMetadata().getAnnotations())
          .containsKey(ShareGpuAnnotations.ASSIGNED_GPUS);
      List<Pod> listed = client.pods().inAnyNamespace().list().getItems();
      assertThat(view.feed().podsSeenAsOf(listed)).isTrue();

      // a watch event (full object) is applied and kept as the cache's reduced copy
      Pod live = client.pods().inNamespace(ns).withName(name).get();
      String uid = live.getMetadata().getUid();
      String moved = ClusterObjects.gpuUuid(1, 7);
      client
          .pods()
          .inNamespace(ns)
          .withName(name)
          .edit(
              p -> {
                p.getMetadata().getAnnotations().put(ShareGpuAnnotations.ASSIGNED_GPUS, moved);
                p.getMetadata()
                    .getAnnotations()
                    .put(
                        ShareGpuAnnotations.forContainer(ShareGpuAnnotations.ASSIGNED_GPUS, "main"),
                        moved);
                return p;
              });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  view.withLedger(l -> l.allocation(uid))
                      .map(a -> a.uuids().equals(Set.of(moved)))
                      .orElse(false));
      assertThat(view.cachedPod(ns, name).orElseThrow().getMetadata().getManagedFields()).isEmpty();
      assertThat(view.feed().podsSeenAsOf(List.of(live))).isTrue();
      assertThat(view.feed().podsSeenAsOf(client.pods().inAnyNamespace().list().getItems()))
          .isTrue();

      client.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> view.withLedger(l -> l.allocation(uid)).isEmpty());
      assertThat(allocationCount(view)).isEqualTo(cluster.boundGpuPods() - 1);
    } finally {
      atReady.compareAndSet(-1, 0);
      view.close();
    }
  }
}
