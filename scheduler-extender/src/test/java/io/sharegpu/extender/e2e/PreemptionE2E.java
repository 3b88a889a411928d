package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Preemption through the real kube-scheduler and the extender's preempt verb, on one simulated node
 * of two GPUs (no kubelet: the test finishes the victims' deletion, as a kubelet would after their
 * grace period). A sampler checks from the pods' annotations, every 100 ms, that no GPU ever holds
 * more than 1000 milli (pods being deleted count: they hold their GPUs until they are gone).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PreemptionE2E {

  private static final String NS = "preemption-e2e";
  private static final String NODE = "pe-h100";
  private static final String MODEL = "NVIDIA PE-TEST 80GB";
  private static final String GPU0 = "GPU-pe-0";
  private static final String GPU1 = "GPU-pe-1";
  private static final String LOW = "sharegpu-e2e-low";
  private static final String HIGH = "sharegpu-e2e-high";

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static JavaApp extender;
  private static int port;
  private static int managementPort;
  private static Thread sampler;
  private static final AtomicBoolean sampling = new AtomicBoolean(true);
  private static final List<String> overCommits = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  static void start() {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.applyNamespace(NS);
    for (var pc : List.of(List.of(LOW, 10), List.of(HIGH, 1000))) {
      client
          .scheduling()
          .v1()
          .priorityClasses()
          .resource(
              new PriorityClassBuilder()
                  .withNewMetadata()
                  .withName((String) pc.get(0))
                  .endMetadata()
                  .withValue((Integer) pc.get(1))
                  .build())
          .serverSideApply();
    }
    TestNodes.gpuNode(NODE)
        .uuids(i -> List.of(GPU0, GPU1).get(i))
        .gpus(2, MODEL, 81559)
        .create(client);
    port = Ports.free();
    managementPort = Ports.free();
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    extender =
        TestApps.startAndAwaitReady(
            TestApps.extender(cluster, port, managementPort), managementPort);
    cluster.startScheduler("http://127.0.0.1:" + port);
    sampler = new Thread(PreemptionE2E::sample, "over-commit-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    sampling.set(false);
    if (sampler != null) {
      sampler.join(2000);
    }
    if (cluster != null) {
      cluster.stopScheduler();
    }
    if (extender != null) {
      extender.stop();
    }
    if (client != null) {
      client.namespaces().withName(NS).delete();
      client.nodes().withName(NODE).delete();
      client.resources(GPUNode.class).withName(NODE).delete();
      client.scheduling().v1().priorityClasses().withName(LOW).delete();
      client.scheduling().v1().priorityClasses().withName(HIGH).delete();
    }
  }

  @Test
  @Order(1)
  void aHighPriorityShareEvictsExactlyTheOnePodWhoseGpuItThenFits() {
    // GPU 0: 500m + 400m; GPU 1: 300m x 3. A 600m share fits after evicting the 500m pod (one
    // victim) or two of the 300m pods; node sums alone would also accept the 400m pod, which frees
    // too little on its GPU.
    createPod("low-a", LOW, GPU0, 500, 30);
    createPod("low-b", LOW, GPU0, 400, 30);
    for (String n : List.of("low-c", "low-d", "low-e")) {
      createPod(n, LOW, GPU1, 300, 30);
    }
    awaitBound("low-a", "low-b", "low-c", "low-d", "low-e");

    createPod("urgent", HIGH, null, 600, 0);
    // kube-scheduler deletes the victim; with a grace period and no kubelet it stays terminating
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(terminating()).containsExactly("low-a"));
    // while it terminates its GPU stays held: the preemptor waits (nominated), nothing else goes
    Awaitility.await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(pod("urgent").getSpec().getNodeName()).isNull());
    assertThat(pod("urgent").getStatus().getNominatedNodeName()).isEqualTo(NODE);

    finishDeletion("low-a");
    awaitBound("urgent");
    assertThat(assigned("urgent")).isEqualTo(GPU0);
    assertThat(live()).containsExactlyInAnyOrder("low-b", "low-c", "low-d", "low-e", "urgent");
    assertThat(overCommits).isEmpty();
  }

  @Test
  @Order(2)
  void aWholeGpuPodEvictsEverySharePackedOnTheCheapestGpu() {
    // GPU 0 holds urgent (high priority, cannot be evicted by an equal priority) and low-b; GPU 1
    // holds three low shares: the whole GPU can only be GPU 1
    createPod("whole", HIGH, null, 1000, 0);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(terminating()).containsExactlyInAnyOrder("low-c", "low-d", "low-e"));
    finishDeletion("low-c", "low-d", "low-e");
    awaitBound("whole");
    assertThat(assigned("whole")).isEqualTo(GPU1);
    assertThat(live()).containsExactlyInAnyOrder("low-b", "urgent", "whole");
    assertThat(overCommits).isEmpty();
  }

  @Test
  @Order(3)
  void aPodOfNoHigherPriorityPreemptsNothingAndWaitsWithAReason() {
    createPod("late", LOW, null, 500, 0);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(pod("late").getStatus().getConditions())
                    .anySatisfy(
                        c -> {
                          assertThat(c.getType()).isEqualTo("PodScheduled");
                          assertThat(c.getStatus()).isEqualTo("False");
                          assertThat(c.getMessage()).contains("preemption");
                        }));
    Awaitility.await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(terminating()).isEmpty());
    assertThat(live()).containsExactlyInAnyOrder("low-b", "urgent", "whole", "late");
    assertThat(pod("late").getSpec().getNodeName()).isNull();
    assertThat(overCommits).isEmpty();
  }

  @Test
  @Order(4)
  void theRoomFreedForAPreemptorIsHeldForItAgainstLowerPriorityPods() throws Exception {
    clearPods();
    // GPU 0: v 600m (the victim-to-be, 30 s grace) and k 300m; GPU 1: m 800m
    createPod("v", LOW, GPU0, 600, 30);
    createPod("k", LOW, GPU0, 300, 0);
    createPod("m", LOW, GPU1, 800, 0);
    awaitBound("v", "k", "m");
    createPod("urgent2", HIGH, null, 600, 0);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(terminating()).containsExactly("v");
              assertThat(pod("urgent2").getStatus().getNominatedNodeName()).isEqualTo(NODE);
            });
    // kube-scheduler pauses, so that nothing but this test decides who goes next
    cluster.stopScheduler();
    try {
      finishDeletion("v");
      createPod("sneaky", LOW, null, 300, 0);
      // node sums let sneaky in beside the nominated preemptor (300 + 800 + 600 + 300 = 2000m),
      // but on GPU 0 it would leave urgent2 no room: filter holds the room for urgent2
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(live()).doesNotContain("v");
                String answer = filterCall(pod("sneaky"));
                assertThat(answer).contains("\"NodeNames\":[]");
                assertThat(answer).contains("held for pod " + NS + "/urgent2 (priority 1000)");
              });
      // urgent2 itself fits
      assertThat(filterCall(pod("urgent2"))).contains("\"NodeNames\":[\"" + NODE + "\"]");
      // explain says what preemption would do: a 900m pod of high priority (left to no
      // scheduler) needs one victim, k (GPU 0) or m (GPU 1): no pod has a start time without a
      // kubelet, so neither loses more GPU time; sneaky, of low priority, can evict nobody
      createPod("vip", HIGH, null, 900, 0, "no-scheduler");
      assertThat(get("/debug/pods/" + NS + "/vip/explain"))
          .containsPattern("\"preemption\":\"would preempt " + NS + "/(k|m)\"");
      assertThat(get("/debug/pods/" + NS + "/sneaky/explain"))
          .contains("\"preemption\":\"no preemption: ");
      client.pods().inNamespace(NS).withName("vip").withGracePeriod(0).delete();
    } finally {
      cluster.startScheduler("http://127.0.0.1:" + port);
    }
    awaitBound("urgent2");
    assertThat(assigned("urgent2")).isEqualTo(GPU0);
    Awaitility.await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(pod("sneaky").getSpec().getNodeName()).isNull());
    assertThat(overCommits).isEmpty();
    // low-a, low-c, low-d, low-e and v were evicted for preemption, each counted once
    assertThat(get("/actuator/prometheus"))
        .contains("sharegpu_preemption_evicted_pods_total 5.0")
        .contains("sharegpu_rejections_total{reason=\"held-for-nominated-pod\",verb=\"filter\"}")
        // the application's own series (docs/metrics.md): latency per verb, per node, no per GPU
        .contains("sharegpu_extender_request_duration_seconds_bucket{verb=\"preempt\",le=\"0.01\"}")
        .contains("sharegpu_node_gpu_compute_capacity{node=\"")
        .contains("sharegpu_cluster_gpus ")
        .containsPattern("sharegpu_ledger_rebuild_duration_seconds [0-9][0-9.E-]*\n")
        .doesNotContain("sharegpu_gpu_compute_allocated");
  }

  private static String get(String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  // ---------------------------------------------------------------------------------- helpers

  /** Calls the extender's filter the way kube-scheduler does, for one node. */
  private static String filterCall(Pod pod) throws Exception {
    String body =
        "{\"Pod\":"
            + client.getKubernetesSerialization().asJson(pod)
            + ",\"NodeNames\":[\""
            + NODE
            + "\"]}";
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/filter"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  private static void clearPods() {
    client.pods().inNamespace(NS).withGracePeriod(0).delete();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(client.pods().inNamespace(NS).list().getItems()).isEmpty());
  }

  private static void createPod(
      String name, String priorityClass, String pinnedGpu, int milli, long graceSeconds) {
    createPod(
        name, priorityClass, pinnedGpu, milli, graceSeconds, ShareGpuAnnotations.SCHEDULER_NAME);
  }

  private static void createPod(
      String name,
      String priorityClass,
      String pinnedGpu,
      int milli,
      long graceSeconds,
      String schedulerName) {
    TestPods.Builder pod =
        TestPods.pod(name)
            .namespace(NS)
            .model("PE-TEST")
            .schedulerName(schedulerName)
            .priorityClass(priorityClass)
            .gracePeriod(graceSeconds)
            .share(milli, 0);
    if (pinnedGpu != null) {
      pod.pinned(pinnedGpu);
    }
    pod.create(client);
  }

  private static Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static void awaitBound(String... names) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (String n : names) {
                assertThat(pod(n).getSpec().getNodeName()).as(n).isEqualTo(NODE);
              }
            });
  }

  private static String assigned(String name) {
    return pod(name).getMetadata().getAnnotations().get(ShareGpuAnnotations.ASSIGNED_GPUS);
  }

  private static Set<String> terminating() {
    Set<String> out = new TreeSet<>();
    for (Pod p : client.pods().inNamespace(NS).list().getItems()) {
      if (p.getMetadata().getDeletionTimestamp() != null) {
        out.add(p.getMetadata().getName());
      }
    }
    return out;
  }

  private static Set<String> live() {
    Set<String> out = new TreeSet<>();
    for (Pod p : client.pods().inNamespace(NS).list().getItems()) {
      if (p.getMetadata().getDeletionTimestamp() == null) {
        out.add(p.getMetadata().getName());
      }
    }
    return out;
  }

  /** What a kubelet does once a pod's containers stopped: the final, immediate delete. */
  private static void finishDeletion(String... names) {
    for (String n : names) {
      client.pods().inNamespace(NS).withName(n).withGracePeriod(0).delete();
    }
  }

  private static void sample() {
    while (sampling.get()) {
      try {
        Map<String, Integer> milli = new HashMap<>();
        for (Pod p : client.pods().inNamespace(NS).list().getItems()) {
          Map<String, String> a = p.getMetadata().getAnnotations();
          String gpus = a == null ? null : a.get(ShareGpuAnnotations.ASSIGNED_GPUS);
          if (gpus == null || p.getSpec().getNodeName() == null) {
            continue;
          }
          int request =
              p.getSpec()
                  .getContainers()
                  .get(0)
                  .getResources()
                  .getLimits()
                  .get(ShareGpuResources.GPU_MILLI)
                  .getNumericalAmount()
                  .intValue();
          for (String uuid : gpus.split(",")) {
            milli.merge(uuid, Math.min(request, 1000), Integer::sum);
          }
        }
        milli.forEach(
            (uuid, m) -> {
              if (m > 1000) {
                overCommits.add(uuid + " holds " + m + " milli");
              }
            });
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // the API server is busy or the namespace is going: sample again
      }
    }
  }
}
