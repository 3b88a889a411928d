package io.sharegpu.controller.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodGpu;
import io.sharegpu.api.sharepod.SharePodSpec;
import io.sharegpu.api.sharepod.SharePodStatus;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestEvents;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import io.sharegpu.testcluster.TestSharePods;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Preemption of SharePods through the real path: the controller jar, kube-scheduler with the
 * sharegpu-scheduler profile and the real extender jar (its preempt verb), on one simulated node
 * with one GPU. A low-priority SharePod holds the whole GPU; a high-priority pod (a plain pod, then
 * a SharePod) takes it. The SharePod says who preempted it, gets a new pod that waits for the GPU,
 * and is not finished. The low SharePod's template has terminationGracePeriodSeconds 0, so the
 * victim is gone the moment kube-scheduler deletes it (no kubelet here to wait for). Needs the
 * extender jar and is skipped without it: {@code ./mvnw -pl
 * api,core,scheduler-extender,sharepod-controller -am verify -De2e
 * -Dit.test=SharePodPreemptionE2E}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharePodPreemptionE2E {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String NAMESPACE = "shp-p-e2e-" + Long.toString(System.nanoTime(), 36);
  private static final String NODE = "shp-p-e2e-h100";
  private static final String GPU = "GPU-shp-p-0000-0000-0000-000000000000";
  private static final String LOW = "shp-e2e-low";
  private static final String HIGH = "shp-e2e-high";
  private static final Path EXTENDER_JAR = TestApps.extenderJar();

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static JavaApp extender;
  private static JavaApp controller;
  private static String firstPodUid;

  @BeforeAll
  static void start() {
    Assumptions.assumeTrue(
        Files.isRegularFile(EXTENDER_JAR),
        "needs " + EXTENDER_JAR + ": build with -pl scheduler-extender,sharepod-controller");
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.createNamespace(NAMESPACE);
    for (var pc : List.of(Map.entry(LOW, 10), Map.entry(HIGH, 1000))) {
      client
          .scheduling()
          .v1()
          .priorityClasses()
          .resource(
              new PriorityClassBuilder()
                  .withNewMetadata()
                  .withName(pc.getKey())
                  .endMetadata()
                  .withValue(pc.getValue())
                  .build())
          .serverSideApply();
    }
    TestNodes.gpuNode(NODE).uuids(i -> GPU).gpus(1, "NVIDIA H100 80GB HBM3", 81559).create(client);
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
      client.scheduling().v1().priorityClasses().withName(LOW).delete();
      client.scheduling().v1().priorityClasses().withName(HIGH).delete();
    }
    if (extender != null) {
      extender.stop();
    }
  }

  @Test
  @Order(1)
  void aHigherPriorityPodPreemptsASharePodWhichSaysByWhomAndWaitsWithANewPod() throws Exception {
    create(sharePod("notebook", LOW, 0L));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("notebook");
              assertThat(status).isNotNull();
              assertThat(status.getPhase()).as(status.getMessage()).isEqualTo("Scheduled");
              assertThat(status.getGpuList()).isEqualTo(GPU);
            });
    firstPodUid = pod("notebook").getMetadata().getUid();
    assertThat(pod("notebook").getSpec().getPriorityClassName()).isEqualTo(LOW);
    assertThat(pod("notebook").getSpec().getPriority()).isEqualTo(10);
    assertThat(kubectl("get", "shp", "notebook", "-n", NAMESPACE))
        .contains("PRIORITY")
        .containsPattern("notebook\\s+1\\s+.*Scheduled\\s+" + LOW + "\\s");

    client.pods().inNamespace(NAMESPACE).resource(plainPod("urgent", HIGH)).create();

    String words =
        "pod notebook was preempted by higher-priority pod "
            + NAMESPACE
            + "/urgent on node "
            + NODE;
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Condition preempted =
                  condition(status("notebook"), "Preempted")
                      .orElseThrow(() -> new AssertionError("no Preempted condition"));
              assertThat(preempted.getStatus()).isEqualTo("True");
              assertThat(preempted.getReason()).isEqualTo("PreemptionByScheduler");
              assertThat(preempted.getMessage()).isEqualTo(words);
            });
    // kube-scheduler's own Event about the victim, which the controller read the preemptor from
    assertThat(eventsAbout("Pod", "notebook"))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("Preempted");
              assertThat(e.getInvolvedObject().getUid()).isEqualTo(firstPodUid);
              assertThat(e.getRelated().getName()).isEqualTo("urgent");
            });
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(eventsAbout("SharePod", "notebook"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo("Preempted");
                          assertThat(e.getMessage()).isEqualTo(words);
                        }));

    // the preemptor gets the GPU; the SharePod got a new pod that waits, and is not finished
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(pod("urgent").getSpec().getNodeName()).isEqualTo(NODE);
              Pod next = pod("notebook");
              assertThat(next).isNotNull();
              assertThat(next.getMetadata().getUid()).isNotEqualTo(firstPodUid);
            });
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(pod("notebook").getSpec().getNodeName()).isNull();
              SharePodStatus status = status("notebook");
              assertThat(status.getPhase()).isEqualTo("Pending");
              assertThat(
                      condition(status, "Preempted")
                          .orElseThrow(() -> new AssertionError("no Preempted condition"))
                          .getStatus())
                  .isEqualTo("True");
            });
    assertThat(eventsAbout("SharePod", "notebook"))
        .filteredOn(e -> "Preempted".equals(e.getReason()))
        .hasSize(1);
    assertThat(eventsAbout("SharePod", "notebook"))
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("RecreatedPod"));
  }

  @Test
  @Order(2)
  void onceTheGpuIsFreeTheNewPodIsBoundAndPreemptedTurnsFalseWhenItRuns() {
    client.pods().inNamespace(NAMESPACE).withName("urgent").withGracePeriod(0).delete();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("notebook");
              assertThat(status.getPhase()).as(status.getMessage()).isEqualTo("Scheduled");
              assertThat(
                      condition(status, "Preempted")
                          .orElseThrow(() -> new AssertionError("no Preempted condition"))
                          .getStatus())
                  .isEqualTo("True");
            });

    // what a kubelet would report once the container started
    client
        .pods()
        .inNamespace(NAMESPACE)
        .withName("notebook")
        .editStatus(
            p -> new PodBuilder(p).editOrNewStatus().withPhase("Running").endStatus().build());
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("notebook");
              assertThat(status.getPhase()).isEqualTo("Running");
              Condition preempted =
                  condition(status, "Preempted")
                      .orElseThrow(() -> new AssertionError("no Preempted condition"));
              assertThat(preempted.getStatus()).isEqualTo("False");
              assertThat(preempted.getReason()).isEqualTo("NewPodStarted");
              assertThat(preempted.getMessage()).contains(NAMESPACE + "/urgent");
            });
  }

  @Test
  @Order(3)
  void aHigherPrioritySharePodPreemptsItToo() {
    String before = pod("notebook").getMetadata().getUid();
    create(sharePod("training", HIGH, null));

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Condition preempted =
                  condition(status("notebook"), "Preempted")
                      .orElseThrow(() -> new AssertionError("no Preempted condition"));
              assertThat(preempted.getStatus()).isEqualTo("True");
              assertThat(preempted.getMessage())
                  .isEqualTo(
                      "pod notebook was preempted by higher-priority pod "
                          + NAMESPACE
                          + "/training on node "
                          + NODE);
              SharePodStatus training = status("training");
              assertThat(training.getPhase()).as(training.getMessage()).isEqualTo("Scheduled");
              assertThat(training.getGpuList()).isEqualTo(GPU);
            });
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Pod next = pod("notebook");
              assertThat(next).isNotNull();
              assertThat(next.getMetadata().getUid()).isNotEqualTo(before);
              assertThat(next.getSpec().getNodeName()).isNull();
              assertThat(status("notebook").getPhase()).isEqualTo("Pending");
            });
    assertThat(condition(status("training"), "Preempted")).isEmpty();
    assertThat(eventsAbout("SharePod", "notebook"))
        .filteredOn(e -> "Preempted".equals(e.getReason()))
        .hasSize(2);
  }

  /** A SharePod holding a whole GPU with the given priority class and grace period. */
  private static SharePod sharePod(String name, String priorityClass, @Nullable Long grace) {
    SharePod sp = new SharePod();
    sp.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build());
    sp.setSpec(
        new SharePodSpec(
            new SharePodGpu(new Quantity("1")),
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .withPriorityClassName(priorityClass)
                .withTerminationGracePeriodSeconds(grace)
                .withContainers(
                    new ContainerBuilder()
                        .withName("main")
                        .withImage("registry.k8s.io/pause:3.10")
                        .build())
                .endSpec()
                .build()));
    return sp;
  }

  private static Pod plainPod(String name, String priorityClass) {
    return TestPods.pod(name)
        .namespace(NAMESPACE)
        .priorityClass(priorityClass)
        .gracePeriod(0)
        .share(1000, 0)
        .build();
  }

  private static void create(SharePod sp) {
    client.resources(SharePod.class).inNamespace(NAMESPACE).resource(sp).create();
  }

  private static @Nullable Pod pod(String name) {
    return client.pods().inNamespace(NAMESPACE).withName(name).get();
  }

  private static @Nullable SharePodStatus status(String name) {
    return TestSharePods.status(client, NAMESPACE, name);
  }

  private static Optional<Condition> condition(@Nullable SharePodStatus status, String type) {
    return status == null
        ? Optional.empty()
        : status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  private static List<Event> eventsAbout(String kind, String name) {
    return TestEvents.about(client, NAMESPACE, kind, name);
  }

  private static String kubectl(String... args) throws IOException, InterruptedException {
    return cluster.kubectl(args);
  }
}
