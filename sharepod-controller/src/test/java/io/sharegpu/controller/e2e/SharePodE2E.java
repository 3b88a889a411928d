package io.sharegpu.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuEnv;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodStatus;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestEvents;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import io.sharegpu.testcluster.TestSharePods;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The controller jar against the real control plane (kube-apiserver, etcd, kube-controller-manager
 * with garbage collection, kube-scheduler with the sharegpu-scheduler profile). kube-scheduler
 * calls {@link InTestExtender}, which binds as the real extender does. The SharePods are the ones
 * in {@code examples/sharepods/}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharePodE2E {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String NAMESPACE = "shp-e2e-" + Long.toString(System.nanoTime(), 36);
  private static final String H100_NODE = "shp-e2e-h100";
  private static final String A100_NODE = "shp-e2e-a100";

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static InTestExtender extender;
  private static JavaApp controller;
  private static int port;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.createNamespace(NAMESPACE);
    createGpuNode(H100_NODE, "NVIDIA H100 80GB HBM3", 81559, 4);
    createGpuNode(A100_NODE, "NVIDIA A100-SXM4-40GB", 40960, 2);
    extender = new InTestExtender(client);
    cluster.startScheduler(extender.url());
    controller = startController();
  }

  @AfterAll
  static void stop() {
    if (controller != null) {
      controller.stop();
    }
    if (cluster != null) {
      cluster.stopScheduler();
      client.namespaces().withName(NAMESPACE).delete();
      client.nodes().withName(H100_NODE).delete();
      client.nodes().withName(A100_NODE).delete();
      client.resources(GPUNode.class).withName(H100_NODE).delete();
      client.resources(GPUNode.class).withName(A100_NODE).delete();
    }
    if (extender != null) {
      extender.close();
    }
  }

  @Test
  @Order(1)
  void examplesBecomeScheduledPodsWhoseStatusShowsNodeAndGpus() throws Exception {
    apply("notebook.yaml");
    apply("training.yaml");
    apply("inference-h100.yaml");

    SharePodStatus notebook = awaitScheduled("notebook");
    assertThat(notebook.getGpus()).hasSize(1);
    assertThat(notebook.getGpus().get(0).getUuid()).startsWith("GPU-");
    assertThat(notebook.getGpus().get(0).getModel()).startsWith("NVIDIA ");
    assertThat(notebook.getMemoryMiB()).isEqualTo(10240L);
    assertThat(conditionReason(notebook, "Scheduled")).isEqualTo("Bound");

    SharePodStatus training = awaitScheduled("training");
    assertThat(training.getGpus()).hasSize(2);
    assertThat(training.getGpuList()).contains(",");

    SharePodStatus inference = awaitScheduled("inference-h100");
    assertThat(inference.getNodeName()).isEqualTo(H100_NODE);
    assertThat(inference.getGpus().get(0).getModel()).isEqualTo("NVIDIA H100 80GB HBM3");

    Pod pod = client.pods().inNamespace(NAMESPACE).withName("notebook").get();
    assertThat(pod.getSpec().getSchedulerName()).isEqualTo("sharegpu-scheduler");
    assertThat(pod.getSpec().getContainers().get(0).getEnv())
        .containsAll(ShareGpuEnv.downwardApiEnv("notebook"));
    assertThat(pod.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("SharePod");
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(events("notebook")).contains("CreatedPod", "Scheduled"));

    String table = kubectl("get", "shp", "-n", NAMESPACE);
    assertThat(table)
        .contains("REQUEST", "LIMIT", "MEMORY", "NODE", "GPUS", "PHASE", "PRIORITY", "AGE");
    assertThat(table)
        .containsPattern(
            "notebook\\s+0\\.25\\s+0\\.5\\s+10Gi\\s+shp-e2e-\\S+\\s+GPU-\\S+\\s+Scheduled");
  }

  @Test
  @Order(2)
  void anImpossibleSharePodReportsWhy() {
    client
        .resources(SharePod.class)
        .inNamespace(NAMESPACE)
        .resource(load("training.yaml", "eight-gpus", Map.of("request", "8")))
        .create();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("eight-gpus");
              assertThat(status).isNotNull();
              assertThat(status.getPhase()).isEqualTo("Pending");
              assertThat(conditionReason(status, "Scheduled")).isEqualTo("Unschedulable");
              assertThat(status.getMessage())
                  .startsWith("pod eight-gpus cannot be scheduled: ")
                  .contains("Insufficient sharegpu.io/gpu-milli");
            });
    await().atMost(WAIT).until(() -> events("eight-gpus").contains("FailedScheduling"));
  }

  @Test
  @Order(3)
  void anInvalidSharePodGetsAConditionAndNoPod() {
    SharePod bad = load("notebook.yaml", "sees-all-gpus", Map.of());
    bad.getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .setEnv(
            List.of(
                new io.fabric8.kubernetes.api.model.EnvVar("NVIDIA_VISIBLE_DEVICES", "all", null)));
    client.resources(SharePod.class).inNamespace(NAMESPACE).resource(bad).create();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("sees-all-gpus");
              assertThat(status).isNotNull();
              assertThat(conditionReason(status, "Valid")).isEqualTo("InvalidRequest");
              assertThat(status.getMessage())
                  .contains("env NVIDIA_VISIBLE_DEVICES is set by ShareGPU");
            });
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(events("sees-all-gpus")).contains("InvalidSharePod"));
    assertThat(client.pods().inNamespace(NAMESPACE).withName("sees-all-gpus").get()).isNull();
  }

  @Test
  @Order(4)
  void aPodDeletedBySomeoneElseIsCreatedAgainAndScheduled() {
    Pod before = client.pods().inNamespace(NAMESPACE).withName("training").get();
    assertThat(before).as("the SharePod's pod before someone deletes it").isNotNull();

    // without a kubelet a bound pod would wait for one forever: delete it at once
    client.pods().inNamespace(NAMESPACE).withName("training").withGracePeriod(0).delete();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Pod after = client.pods().inNamespace(NAMESPACE).withName("training").get();
              assertThat(after).isNotNull();
              assertThat(after.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());
              assertThat(after.getSpec().getNodeName()).isNotEmpty();
            });
    awaitScheduled("training");
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(events("training")).contains("RecreatedPod"));
  }

  @Test
  @Order(5)
  void aRestartedControllerNeitherDuplicatesNorLosesPods() {
    Map<String, String> uids = podUids();
    assertThat(uids).containsKeys("notebook", "training", "inference-h100", "eight-gpus");

    controller.kill(); // like a crash
    controller = startController();

    await()
        .during(Duration.ofSeconds(3))
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(podUids()).isEqualTo(uids));
    assertThat(status("notebook").getPhase()).isEqualTo("Scheduled");
  }

  @Test
  @Order(6)
  void deletingASharePodDeletesItsPod() {
    // the pod must exist first, owned by its SharePod, or the test below would pass on nothing
    Pod pod = client.pods().inNamespace(NAMESPACE).withName("notebook").get();
    assertThat(pod).as("the SharePod's pod before the delete").isNotNull();
    assertThat(pod.getMetadata().getDeletionTimestamp()).isNull();
    assertThat(pod.getMetadata().getOwnerReferences())
        .anySatisfy(
            owner -> {
              assertThat(owner.getKind()).isEqualTo("SharePod");
              assertThat(owner.getName()).isEqualTo("notebook");
            });
    client.resources(SharePod.class).inNamespace(NAMESPACE).withName("notebook").delete();

    // garbage collection deletes the pod; bound, it waits for a kubelet, which this cluster has not
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Pod current = client.pods().inNamespace(NAMESPACE).withName("notebook").get();
              return current == null || current.getMetadata().getDeletionTimestamp() != null;
            });
    TestPods.deleteAndAwaitGone(client, NAMESPACE, "notebook", WAIT);
  }

  @Test
  @Order(7)
  void aPodTheQuotaForbidsIsReportedAndCreatedOnceTheQuotaAllowsIt() {
    ResourceQuota quota =
        new ResourceQuotaBuilder()
            .withNewMetadata()
            .withName("gpu-quota")
            .withNamespace(NAMESPACE)
            .endMetadata()
            .withNewSpec()
            .addToHard("requests.sharegpu.io/gpu-milli", new Quantity("100"))
            .endSpec()
            .build();
    client.resourceQuotas().inNamespace(NAMESPACE).resource(quota).create();
    // no quota controller runs here: set the usage the way it would
    client
        .resourceQuotas()
        .inNamespace(NAMESPACE)
        .withName("gpu-quota")
        .editStatus(
            q ->
                new ResourceQuotaBuilder(q)
                    .withNewStatus()
                    .addToHard("requests.sharegpu.io/gpu-milli", new Quantity("100"))
                    .addToUsed("requests.sharegpu.io/gpu-milli", new Quantity("0"))
                    .endStatus()
                    .build());
    client
        .resources(SharePod.class)
        .inNamespace(NAMESPACE)
        .resource(load("notebook.yaml", "over-quota", Map.of()))
        .create();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("over-quota");
              assertThat(status).isNotNull();
              assertThat(conditionReason(status, "Scheduled")).isEqualTo("FailedCreatePod");
              assertThat(status.getMessage())
                  .startsWith("creating pod over-quota failed: ")
                  .contains("exceeded quota");
            });
    // the Event is recorded after the status write: wait for it too
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(events("over-quota")).contains("FailedCreatePod"));

    client.resourceQuotas().inNamespace(NAMESPACE).withName("gpu-quota").delete();
    awaitScheduled("over-quota");
  }

  @Test
  @Order(8)
  void exposesPrometheusMetrics() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body())
        .contains("sharegpu_controller_reconciles_total")
        .contains("sharegpu_controller_queue_depth");
  }

  @Test
  @Order(9)
  void aChangedGpuRequestIsReportedNotAppliedToTheRunningPod() {
    SharePod sp =
        client.resources(SharePod.class).inNamespace(NAMESPACE).withName("inference-h100").get();
    sp.getSpec().getGpu().setRequest(new Quantity("300m"));
    client.resources(SharePod.class).inNamespace(NAMESPACE).resource(sp).update();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(status("inference-h100").getMessage())
                    .contains(
                        "spec.gpu changed after pod inference-h100 was created (gpu-milli 200 ->"
                            + " 300); it applies to the next pod"));
    assertThat(status("inference-h100").getObservedGeneration()).isEqualTo(2L);
    assertThat(
            client
                .pods()
                .inNamespace(NAMESPACE)
                .withName("inference-h100")
                .get()
                .getSpec()
                .getContainers()
                .get(0)
                .getResources()
                .getLimits())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("200"));
  }

  // ------------------------------------------------------------------ helpers

  private static JavaApp startController() {
    port = Ports.free();
    Path jar = Path.of("target", "sharegpu-sharepod-controller.jar").toAbsolutePath();
    return JavaApp.jar(jar)
        .name("sharepod-controller")
        .args("--server.port=" + port, "--sharegpu.controller.namespaces=" + NAMESPACE)
        .jvmOptions("-XX:TieredStopAtLevel=1", "-Xmx256m")
        .env("KUBECONFIG", cluster.kubeconfig().toString())
        .start()
        .waitForHttp(
            "http://127.0.0.1:" + port + "/actuator/health/readiness", Duration.ofSeconds(120));
  }

  private static void apply(String example) {
    client
        .resources(SharePod.class)
        .inNamespace(NAMESPACE)
        .resource(load(example, null, Map.of()))
        .create();
  }

  private static SharePod load(String example, @Nullable String name, Map<String, String> gpu) {
    Path file = TestCluster.repoRoot().resolve("examples/sharepods").resolve(example);
    try (InputStream in = Files.newInputStream(file)) {
      SharePod sp = client.resources(SharePod.class).load(in).item();
      sp.getMetadata().setNamespace(NAMESPACE);
      if (name != null) {
        sp.getMetadata().setName(name);
      }
      if (gpu.containsKey("request")) {
        sp.getSpec().getGpu().setRequest(new Quantity(gpu.get("request")));
      }
      return sp;
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  private static SharePodStatus awaitScheduled(String name) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status(name);
              assertThat(status).as("status of %s", name).isNotNull();
              assertThat(status.getPhase())
                  .as("phase of %s: %s", name, status.getMessage())
                  .isEqualTo("Scheduled");
              assertThat(status.getNodeName()).isIn(H100_NODE, A100_NODE);
              assertThat(status.getGpus()).isNotEmpty();
              assertThat(status.getGpus()).allSatisfy(g -> assertThat(g.getModel()).isNotNull());
              assertThat(status.getMessage()).doesNotContain("spec.gpu changed");
            });
    return status(name);
  }

  private static @Nullable SharePodStatus status(String name) {
    return TestSharePods.status(client, NAMESPACE, name);
  }

  private static @Nullable String conditionReason(SharePodStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(c -> c.getReason())
        .findFirst()
        .orElse(null);
  }

  private static List<String> events(String name) {
    return TestEvents.about(client, NAMESPACE, "SharePod", name).stream()
        .map(Event::getReason)
        .toList();
  }

  private static Map<String, String> podUids() {
    Map<String, String> uids = new java.util.TreeMap<>();
    for (Pod pod : client.pods().inNamespace(NAMESPACE).list().getItems()) {
      assertThat(uids.put(pod.getMetadata().getName(), pod.getMetadata().getUid())).isNull();
    }
    return uids;
  }

  private static String kubectl(String... args) throws IOException, InterruptedException {
    return cluster.kubectl(args);
  }

  private static void createGpuNode(String name, String model, long memoryMib, int gpus) {
    TestNodes.gpuNode(name)
        .uuids(i -> TestNodes.nvidiaUuid(name, i))
        .gpus(gpus, model, memoryMib)
        .create(client);
  }
}
