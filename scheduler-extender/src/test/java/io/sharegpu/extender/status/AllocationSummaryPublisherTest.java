package io.sharegpu.extender.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuNodeAllocation;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The allocation summary against fabric8's CRUD mock API server, with the view's informers. */
@EnableKubernetesMockClient(crud = true)
class AllocationSummaryPublisherTest {
  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final long SECOND = 1_000_000_000L;

  KubernetesMockServer server;
  KubernetesClient client;

  private ClusterFixture view;
  private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
  private final AtomicBoolean leader = new AtomicBoolean(true);
  private AllocationSummaryPublisher publisher;

  @BeforeEach
  void setUp() {
    for (int n = 0; n < 3; n++) {
      client.resource(Fixtures.node("n" + n, 2, 81559)).create();
      GPUNode g = Fixtures.gpuNode("n" + n, H100, 2, 81559);
      g.setSpec(new GPUNodeSpec("n" + n));
      client.resource(g).create();
    }
    view =
        new ClusterFixture(client, PlacementPolicies.byName("binpack", 1), Duration.ofSeconds(30));
    view.start();
    publisher =
        new AllocationSummaryPublisher(
            view.state(),
            view.feed(),
            client,
            leader::get,
            Duration.ofSeconds(5),
            2,
            new SimpleMeterRegistry(),
            clock::get);
  }

  @AfterEach
  void tearDown() {
    publisher.close();
    view.close();
  }

  private GpuNodeAllocation allocation(String node) {
    GPUNode g = client.resources(GPUNode.class).withName(node).get();
    return g.getStatus().getAllocation();
  }

  private void awaitCached(String node, int pods) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                view.feed()
                    .cachedGpuNode(node)
                    .map(g -> g.getStatus().getAllocation())
                    .map(a -> a.getPods() == pods)
                    .orElse(false));
  }

  private void commit(String uid, String node, int gpu, int milli, long mib) {
    view.withLedger(
        l -> {
          l.commit(
              new Allocation(
                  "ns/" + uid,
                  uid,
                  node,
                  List.of(
                      new ContainerGrant(
                          "main",
                          List.of(new GpuGrant(Fixtures.uuid(node, gpu), milli, mib)),
                          milli)),
                  AllocationState.BOUND));
          return null;
        });
  }

  @Test
  void eachWriteIsOnePatchOfTheStatusWithoutAGetFirst() throws InterruptedException {
    while (server.takeRequest(200, TimeUnit.MILLISECONDS) != null) {
      // drop the informers' lists and watches
    }
    assertThat(publisher.runOnce()).isEqualTo(2);

    List<String> calls = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(200, TimeUnit.MILLISECONDS)) != null) {
      if (r.getPath().contains("/gpunodes/")) {
        calls.add(r.getMethod() + " " + r.getPath());
      }
    }
    assertThat(calls)
        .hasSize(2)
        .allMatch(c -> c.startsWith("PATCH ") && c.endsWith("/status"), "a PATCH of the status");
  }

  @Test
  void writesChangedSummariesOnlyBoundedPerPassAndDebouncedPerNode() {
    // three nodes, two writes a pass
    assertThat(publisher.runOnce()).isEqualTo(2);
    assertThat(publisher.runOnce()).isEqualTo(1);
    assertThat(allocation("n0").getFreeGpus()).isEqualTo(2);
    assertThat(allocation("n2").getPods()).isZero();
    for (int n = 0; n < 3; n++) {
      awaitCached("n" + n, 0);
    }
    clock.addAndGet(10 * SECOND);
    assertThat(publisher.runOnce()).as("nothing changed").isZero();

    // n0 changes three times within the interval: one write, with the latest summary
    commit("a", "n0", 0, 250, 1000);
    assertThat(publisher.runOnce()).isEqualTo(1);
    commit("b", "n0", 0, 250, 1000);
    commit("c", "n0", 1, 500, 2000);
    assertThat(publisher.runOnce()).as("debounced").isZero();
    clock.addAndGet(5 * SECOND);
    assertThat(publisher.runOnce()).isEqualTo(1);
    GpuNodeAllocation a = allocation("n0");
    assertThat(a.getFreeGpus()).isZero();
    assertThat(a.getAllocatedMilli()).isEqualTo(1000);
    assertThat(a.getAllocatedMemoryMiB()).isEqualTo(4000);
    assertThat(a.getPods()).isEqualTo(3);
    assertThat(allocation("n1").getPods()).isZero();
  }

  @Test
  void onlyTheLeaderWritesAndCordonsAreCounted() {
    leader.set(false);
    assertThat(publisher.runOnce()).isZero();
    assertThat(client.resources(GPUNode.class).withName("n0").get().getStatus().getAllocation())
        .isNull();

    GPUNode g = client.resources(GPUNode.class).withName("n1").get();
    g.getSpec().setCordonedGpus(List.of(new GpuCordon(Fixtures.uuid("n1", 1), "Xid 79", null)));
    client.resources(GPUNode.class).resource(g).update();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> view.<Boolean>withLedger(l -> l.nodeUsage("n1").isCordoned(1)));

    leader.set(true);
    publisher.runOnce();
    publisher.runOnce();
    assertThat(allocation("n1").getCordonedGpus()).isEqualTo(1);
    assertThat(allocation("n1").getFreeGpus()).isEqualTo(2);
    assertThat(allocation("n0").getCordonedGpus()).isZero();
    // the spec the operator wrote is untouched
    assertThat(client.resources(GPUNode.class).withName("n1").get().getSpec().getCordonedGpus())
        .hasSize(1);
  }
}
