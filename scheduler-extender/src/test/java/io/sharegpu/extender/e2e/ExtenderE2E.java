package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.testcluster.GpuInvariant;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestEvents;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The extender as a jar behind the real kube-scheduler and kube-apiserver: heterogeneous GPU nodes
 * as API objects, shares, whole GPUs, models, pinned UUIDs, several GPU containers, MIG, an
 * unschedulable pod that is scheduled once capacity frees, and a crash of the extender in the
 * middle of a burst. The invariant (no GPU over-committed) is checked from the pods' annotations
 * after every step.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExtenderE2E {

  private static final String NS = "extender-e2e";
  private static final String RECOVERING = "e2e-rq";
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static JavaApp extender;
  private static int port;
  private static int managementPort;
  private static final Map<String, GpuStatus> GPUS = new HashMap<>();
  private static final Map<String, String> GPU_NODE = new HashMap<>();

  @BeforeAll
  static void startAll() {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.applyNamespace(NS);
    gpuNode("e2e-h100", "NVIDIA H100 80GB HBM3", 8, 81559, false);
    gpuNode("e2e-a100", "NVIDIA A100-SXM4-40GB", 4, 40960, false);
    gpuNode("e2e-t4", "Tesla T4", 2, 15360, false);
    gpuNode("e2e-mig", "NVIDIA A100-SXM4-80GB MIG 3g.40gb", 2, 40192, true);
    port = Ports.free();
    managementPort = Ports.free();
    extender = startExtender();
    cluster.startScheduler("http://127.0.0.1:" + port);
  }

  @AfterAll
  static void stopAll() {
    if (cluster != null) {
      cluster.stopScheduler();
    }
    if (extender != null) {
      extender.stop();
    }
    if (client != null) {
      client.namespaces().withName(NS).delete();
      for (String n : List.of("e2e-h100", "e2e-a100", "e2e-t4", "e2e-mig", RECOVERING)) {
        client.nodes().withName(n).delete();
        client.resources(GPUNode.class).withName(n).delete();
      }
    }
  }

  private static JavaApp startExtender() {
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    return TestApps.startAndAwaitReady(
        TestApps.extender(cluster, port, managementPort).args("--sharegpu.extender.policy=binpack"),
        managementPort);
  }

  // ---------------------------------------------------------------------------------- the steps

  @Test
  @Order(1)
  void sharesWholeGpusModelsPinsMigAndTwoContainersAreBoundToRealUuids() {
    String pinned = "GPU-e2e-a100-3";
    // the T4 node is kept free for the next step
    Map<String, String> notT4 = Map.of(ShareGpuAnnotations.GPU_MODELS, "H100,A100-SXM4-40GB");
    createPod("share", notT4, container("main", 250, 10240));
    createPod("whole", Map.of(ShareGpuAnnotations.GPU_MODELS, "H100"), container("main", 2000, 0));
    createPod(
        "model",
        Map.of(ShareGpuAnnotations.GPU_MODELS, "A100-SXM4-40GB"),
        container("main", 500, 0));
    createPod("pinned", Map.of(ShareGpuAnnotations.GPU_UUIDS, pinned), container("main", 100, 0));
    createPod("mig", Map.of(ShareGpuAnnotations.GPU_MODELS, "MIG"), container("main", 200, 8192));
    createPod("two", notT4, container("a", 300, 0), container("b", 1000, 0));
    for (String name : List.of("share", "whole", "model", "pinned", "mig", "two")) {
      awaitBound(name);
    }
    assertThat(assignment("whole").get().nodeName()).isEqualTo("e2e-h100");
    assertThat(assignment("whole").get().gpuUuids()).hasSize(2);
    assertThat(assignment("model").get().nodeName()).isEqualTo("e2e-a100");
    assertThat(assignment("pinned").get().gpuUuids()).containsExactly(pinned);
    assertThat(assignment("mig").get().nodeName()).isEqualTo("e2e-mig");
    PodAssignment two = assignment("two").get();
    assertThat(two.containers())
        .extracting(ContainerAssignment::container)
        .containsExactlyInAnyOrder("a", "b");
    for (String name : List.of("share", "whole", "model", "pinned", "mig", "two")) {
      PodAssignment a = assignment(name).get();
      assertThat(a.nodeName()).isEqualTo(pod(name).getSpec().getNodeName());
      for (String uuid : a.gpuUuids()) {
        assertThat(GPU_NODE.get(uuid)).as(name + " on " + uuid).isEqualTo(a.nodeName());
      }
    }
    assertInvariant();
  }

  @Test
  @Order(2)
  void aPodThatFitsNowhereWaitsWithOurReasonAndIsScheduledAfterADelete() {
    createPod("t4-a", Map.of(ShareGpuAnnotations.GPU_MODELS, "T4"), container("main", 600, 0));
    createPod("t4-b", Map.of(ShareGpuAnnotations.GPU_MODELS, "T4"), container("main", 600, 0));
    awaitBound("t4-a");
    awaitBound("t4-b");
    assertInvariant();
    // node-level sums still allow 600m more on the T4 node, but no single T4 has 600m free
    createPod("t4-c", Map.of(ShareGpuAnnotations.GPU_MODELS, "T4"), container("main", 600, 0));
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Optional<Event> e =
                  TestEvents.failedScheduling(client, NS, "t4-c").stream().findFirst();
              assertThat(e).isPresent();
              assertThat(e.get().getMessage()).contains("600m");
            });
    assertThat(pod("t4-c").getSpec().getNodeName()).isNull();
    assertInvariant();
    client.pods().inNamespace(NS).withName("t4-a").withGracePeriod(0).delete();
    // kube-scheduler retries t4-c on the delete event; if its filter call reaches the extender
    // before the extender's informer has seen the delete, the extender still counts t4-a and t4-c
    // goes back to waiting for the next cluster event (these simulated nodes send none). A real
    // cluster's next event or the unschedulable-pod flush would retry it; here each touch of the
    // pod's labels is that event.
    Awaitility.await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              Pod p = pod("t4-c");
              if (p.getSpec().getNodeName() == null) {
                client
                    .pods()
                    .inNamespace(NS)
                    .withName("t4-c")
                    .edit(
                        q ->
                            new PodBuilder(q)
                                .editMetadata()
                                .addToLabels("e2e-retry", Long.toString(System.nanoTime()))
                                .endMetadata()
                                .build());
              }
              assertThat(pod("t4-c").getSpec().getNodeName()).as("t4-c bound").isNotNull();
            });
    awaitBound("t4-c");
    assertThat(assignment("t4-c").get().nodeName()).isEqualTo("e2e-t4");
    assertInvariant();
  }

  @Test
  @Order(3)
  void killingTheExtenderMidBurstLosesNothing() throws Exception {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String name = "burst-" + i;
      names.add(name);
      createPod(
          name,
          Map.of(ShareGpuAnnotations.GPU_MODELS, "H100,A100-SXM4-40GB"),
          container("main", 150, 4096));
      if (i == 15) {
        extender.kill();
      }
    }
    extender = startExtender();
    Awaitility.await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              for (String n : names) {
                assertThat(pod(n).getSpec().getNodeName()).as(n).isNotNull();
              }
            });
    for (String n : names) {
      assertThat(assignment(n)).as(n + " has its assignment").isPresent();
    }
    assertInvariant();
    // the restarted extender rebuilt its ledger from the annotations: it knows every bound pod
    String body =
        new String(
            java.net.http.HttpClient.newHttpClient()
                .send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(
                                "http://127.0.0.1:" + managementPort + "/debug/allocations"))
                        .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofByteArray())
                .body(),
            java.nio.charset.StandardCharsets.UTF_8);
    for (String n : names) {
      assertThat(body).contains(NS + "/" + n + "\"");
    }
  }

  @Test
  @Order(4)
  void aPodWaitingForAGpuThatRecoversIsRetriedThoughKubeSchedulerSeesNoEvent() {
    // One GPU, unhealthy. When it recovers only the GPUNode changes, which kube-scheduler does not
    // watch: without the extender's nudge the pod would wait for an unrelated event or 5 minutes.
    GpuStatus gpu = new GpuStatus("GPU-e2e-rq-0", 0, "NVIDIA RQ-TEST", 24576);
    gpu.setComputeMilli(1000);
    gpu.setHealthy(false);
    GPUS.put(gpu.getUuid(), gpu);
    GPU_NODE.put(gpu.getUuid(), RECOVERING);
    TestNodes.gpuNode(RECOVERING).gpu(gpu).create(client);
    createPod(
        "waits-for-recovery",
        Map.of(ShareGpuAnnotations.GPU_MODELS, "RQ-TEST"),
        container("main", 500, 4096));
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(pod("waits-for-recovery").getStatus().getConditions())
                    .anySatisfy(
                        c -> {
                          assertThat(c.getType()).isEqualTo("PodScheduled");
                          assertThat(c.getStatus()).isEqualTo("False");
                        }));

    GPUNode g = client.resources(GPUNode.class).withName(RECOVERING).get();
    g.getStatus().getGpus().get(0).setHealthy(true);
    client.resources(GPUNode.class).resource(g).updateStatus();

    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(pod("waits-for-recovery").getSpec().getNodeName())
                    .isEqualTo(RECOVERING));
    assertThat(pod("waits-for-recovery").getMetadata().getAnnotations())
        .containsKey(ShareGpuAnnotations.REQUEUED_AT)
        .containsEntry(ShareGpuAnnotations.ASSIGNED_GPUS, "GPU-e2e-rq-0");
    assertInvariant();
  }

  // ---------------------------------------------------------------------------------- helpers

  private static Container container(String name, int milli, long memoryMib) {
    return TestPods.gpuContainer(name, TestPods.PAUSE_IMAGE, milli, memoryMib);
  }

  private static void createPod(String name, Map<String, String> annotations, Container... cs) {
    TestPods.pod(name)
        .namespace(NS)
        .annotations(annotations)
        .containers(cs)
        .gracePeriod(0)
        .create(client);
  }

  private static Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static void awaitBound(String name) {
    TestPods.awaitBound(client, NS, name, Duration.ofSeconds(60));
  }

  private static Optional<PodAssignment> assignment(String name) {
    return TestPods.assignment(pod(name));
  }

  /** No GPU holds more compute or memory than it has; whole GPUs are exclusive. */
  private static void assertInvariant() {
    GpuInvariant.assertNoGpuOverCommitted(
        client.pods().inNamespace(NS).list().getItems(), GPUS, GPU_NODE);
  }

  private static void gpuNode(String name, String model, int count, long memMib, boolean mig) {
    TestNodes.Builder node = TestNodes.gpuNode(name);
    if (mig) {
      node.migInstances(count, model, "3g.40gb", 428, memMib);
    } else {
      node.gpus(count, model, memMib);
    }
    for (GpuStatus s : node.create(client)) {
      GPUS.put(s.getUuid(), s);
      GPU_NODE.put(s.getUuid(), name);
    }
  }
}
