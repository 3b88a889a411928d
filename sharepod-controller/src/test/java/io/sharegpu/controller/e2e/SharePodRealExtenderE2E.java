package io.sharegpu.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodStatus;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestSharePods;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * SharePods through the real path: the controller jar, kube-scheduler with the sharegpu-scheduler
 * profile and the real ShareGPU extender jar, on one simulated node with two H100s. Needs the
 * extender jar and is skipped without it: {@code ./mvnw -pl scheduler-extender,sharepod-controller
 * -am verify -De2e}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharePodRealExtenderE2E {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String NAMESPACE = "shp-x-e2e-" + Long.toString(System.nanoTime(), 36);
  private static final String NODE = "shp-x-e2e-h100";
  private static final Path EXTENDER_JAR = TestApps.extenderJar();

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static JavaApp extender;
  private static JavaApp controller;

  @BeforeAll
  static void start() {
    Assumptions.assumeTrue(
        Files.isRegularFile(EXTENDER_JAR),
        "needs " + EXTENDER_JAR + ": build with -pl scheduler-extender,sharepod-controller");
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.createNamespace(NAMESPACE);
    createGpuNode();
    int extenderPort = Ports.free();
    int extenderManagementPort = Ports.free();
    extender =
        TestApps.startAndAwaitReady(
            TestApps.extender(cluster, extenderPort, extenderManagementPort)
                .name("scheduler-extender"),
            extenderManagementPort);
    cluster.startScheduler("http://127.0.0.1:" + extenderPort);
    int controllerPort = Ports.free();
    controller =
        JavaApp.jar(Path.of("target", "sharegpu-sharepod-controller.jar").toAbsolutePath())
            .name("sharepod-controller")
            .args(
                "--server.port=" + controllerPort, "--sharegpu.controller.namespaces=" + NAMESPACE)
            .jvmOptions("-XX:TieredStopAtLevel=1", "-Xmx256m")
            .env("KUBECONFIG", cluster.kubeconfig().toString())
            .start()
            .waitForHttp(
                "http://127.0.0.1:" + controllerPort + "/actuator/health/readiness",
                Duration.ofSeconds(120));
  }

  @AfterAll
  static void stop() {
    if (controller != null) {
      controller.stop();
    }
    if (cluster != null) {
      cluster.stopScheduler();
      client.namespaces().withName(NAMESPACE).delete();
      client.nodes().withName(NODE).delete();
      client.resources(GPUNode.class).withName(NODE).delete();
    }
    if (extender != null) {
      extender.stop();
    }
  }

  @Test
  @Order(1)
  void sharesAreBoundByTheRealExtenderToGpuUuids() {
    create(load("notebook.yaml", "notebook", null));
    create(load("inference-h100.yaml", "inference", null));

    for (String name : List.of("notebook", "inference")) {
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                SharePodStatus status = status(name);
                assertThat(status).isNotNull();
                assertThat(status.getPhase()).as(status.getMessage()).isEqualTo("Scheduled");
                assertThat(status.getNodeName()).isEqualTo(NODE);
                assertThat(status.getGpus())
                    .singleElement()
                    .satisfies(
                        g -> {
                          assertThat(g.getUuid()).startsWith("GPU-shp-x-");
                          assertThat(g.getModel()).isEqualTo("NVIDIA H100 80GB HBM3");
                        });
              });
    }
    Pod pod = client.pods().inNamespace(NAMESPACE).withName("notebook").get();
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE, "50")
        .containsEntry(ShareGpuAnnotations.MPS_PINNED_MEM_LIMIT, "0=10240M");
    assertThat(status("notebook").getMemoryMiB()).isEqualTo(10240L);
  }

  @Test
  @Order(2)
  void aSharePodNoGpuCanHoldReportsTheExtendersReason() {
    create(load("inference-h100.yaml", "wants-b200", List.of("B200")));

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("wants-b200");
              assertThat(status).isNotNull();
              assertThat(status.getPhase()).isEqualTo("Pending");
              assertThat(status.getConditions())
                  .anySatisfy(c -> assertThat(c.getReason()).isEqualTo("Unschedulable"));
              assertThat(status.getMessage()).startsWith("pod wants-b200 cannot be scheduled: ");
            });
  }

  @Test
  @Order(3)
  void deletingASharePodFreesItsGpusForTheNextOne() {
    // two whole GPUs: the node has two, but two shares already sit on them
    create(load("training.yaml", "training", null));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              // the controller may not have written a status yet: keep waiting, do not fail
              assertThat(status("training")).isNotNull();
              assertThat(status("training").getConditions())
                  .anySatisfy(c -> assertThat(c.getReason()).isEqualTo("Unschedulable"));
            });

    for (String name : List.of("notebook", "inference", "wants-b200")) {
      client.resources(SharePod.class).inNamespace(NAMESPACE).withName(name).delete();
    }
    // garbage collection deletes the pods; without a kubelet, finish the deletion by hand
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (String name : List.of("notebook", "inference")) {
                Pod pod = client.pods().inNamespace(NAMESPACE).withName(name).get();
                assertThat(pod == null || pod.getMetadata().getDeletionTimestamp() != null)
                    .isTrue();
              }
            });
    for (String name : List.of("notebook", "inference")) {
      client.pods().inNamespace(NAMESPACE).withName(name).withGracePeriod(0).delete();
    }

    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> {
              SharePodStatus status = status("training");
              assertThat(status.getPhase()).as(status.getMessage()).isEqualTo("Scheduled");
              assertThat(status.getGpus()).hasSize(2);
            });
  }

  @Test
  @Order(4)
  void aNamespaceQuotaRefusesPodsPastItWithTheApiServersMessageAndAdmitsThemOnceAPodIsGone() {
    // training holds 2,000 milli; the quota leaves 500 and 30 GiB of GPU memory
    client
        .resourceQuotas()
        .inNamespace(NAMESPACE)
        .resource(
            new ResourceQuotaBuilder()
                .withNewMetadata()
                .withName("gpu")
                .endMetadata()
                .withNewSpec()
                .addToHard("requests.sharegpu.io/gpu-milli", new Quantity("2500"))
                .addToHard("requests.sharegpu.io/gpu-memory", new Quantity("30720"))
                .endSpec()
                .build())
        .create();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .resourceQuotas()
                            .inNamespace(NAMESPACE)
                            .withName("gpu")
                            .get()
                            .getStatus()
                            .getUsed())
                    .containsEntry("requests.sharegpu.io/gpu-milli", new Quantity("2k")));

    client
        .pods()
        .inNamespace(NAMESPACE)
        .resource(sharePod("within-quota", "400", "10240"))
        .create();
    assertThatThrownBy(
            () ->
                client
                    .pods()
                    .inNamespace(NAMESPACE)
                    .resource(sharePod("past-memory-quota", "100", "25600"))
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("exceeded quota: gpu")
        .hasMessageContaining("requests.sharegpu.io/gpu-memory");

    // 2,400 milli used: the SharePod's 250 do not fit; its status carries the API server's words
    create(load("notebook.yaml", "over-quota", null));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("over-quota");
              assertThat(status).isNotNull();
              assertThat(status.getConditions())
                  .anySatisfy(c -> assertThat(c.getReason()).isEqualTo("FailedCreatePod"));
              assertThat(status.getMessage())
                  .contains("exceeded quota: gpu")
                  .contains("requests.sharegpu.io/gpu-milli");
            });
    assertThat(client.pods().inNamespace(NAMESPACE).withName("over-quota").get()).isNull();

    // another pod ends: the quota controller gives its share back and the SharePod's pod is made
    client.pods().inNamespace(NAMESPACE).withName("within-quota").withGracePeriod(0).delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(client.pods().inNamespace(NAMESPACE).withName("over-quota").get())
                    .isNotNull());
    client.resourceQuotas().inNamespace(NAMESPACE).withName("gpu").delete();
  }

  /** A plain share pod (no kubelet here, so it never runs; the quota counts it all the same). */
  private static Pod sharePod(String name, String milli, String memoryMib) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("sharegpu-scheduler")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .withLimits(
            Map.of(
                "sharegpu.io/gpu-milli", new Quantity(milli),
                "sharegpu.io/gpu-memory", new Quantity(memoryMib)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static void create(SharePod sp) {
    client.resources(SharePod.class).inNamespace(NAMESPACE).resource(sp).create();
  }

  private static SharePod load(String example, String name, @Nullable List<String> models) {
    Path file = TestCluster.repoRoot().resolve("examples/sharepods").resolve(example);
    try (InputStream in = Files.newInputStream(file)) {
      SharePod sp = client.resources(SharePod.class).load(in).item();
      sp.getMetadata().setNamespace(NAMESPACE);
      sp.getMetadata().setName(name);
      if (models != null) {
        sp.getSpec().getGpu().setModels(models);
      }
      return sp;
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  private static @Nullable SharePodStatus status(String name) {
    return TestSharePods.status(client, NAMESPACE, name);
  }

  private static void createGpuNode() {
    TestNodes.gpuNode(NODE)
        .uuids(i -> "GPU-shp-x-0000-0000-0000-00000000000" + i)
        .gpus(2, "NVIDIA H100 80GB HBM3", 81559)
        .create(client);
  }
}
