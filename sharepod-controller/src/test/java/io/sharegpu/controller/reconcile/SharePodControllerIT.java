package io.sharegpu.controller.reconcile;

import static io.sharegpu.controller.model.SharePods.SETTINGS;
import static io.sharegpu.controller.model.SharePods.aSharePod;
import static io.sharegpu.controller.model.SharePods.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodStatus;
import io.sharegpu.controller.model.DesiredPod;
import io.sharegpu.controller.model.SharePodPods;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The controller with real informers against fabric8's CRUD mock API server. */
@EnableKubernetesMockClient(crud = true)
class SharePodControllerIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String GPU = "GPU-11111111-2222-3333-4444-555555555555";

  static KubernetesClient client;
  static KubernetesMockServer server;

  private String ns;
  private @Nullable SharePodController controller;

  @BeforeAll
  static void applyCrds() throws IOException {
    Path crds = Path.of("..", "charts", "sharegpu", "crds");
    try (Stream<Path> files = Files.list(crds)) {
      for (Path file :
          files
              .filter(f -> f.toString().endsWith(".yml") || f.toString().endsWith(".yaml"))
              .toList()) {
        try (InputStream in = Files.newInputStream(file)) {
          client.apiextensions().v1().customResourceDefinitions().load(in).create();
        }
      }
    }
  }

  @BeforeEach
  void startController(org.junit.jupiter.api.TestInfo info) {
    ns = "ns-" + Integer.toHexString(Objects.hash(info.getDisplayName(), System.nanoTime()));
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    controller = newController();
    controller.start();
    await().atMost(WAIT).until(controller::isReady);
  }

  @AfterEach
  void stopController() {
    if (controller != null) {
      controller.stop();
    }
  }

  @Test
  void createsExactlyOneOwnedPodAndReportsItInTheStatus() {
    SharePod sp = create(aSharePod("notebook", "0.25", g -> g.setLimit(q("0.5"))));

    Pod pod = awaitPod("notebook");
    assertThat(pod.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(sp.getMetadata().getUid()));
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(ShareGpuAnnotations.GPU_LIMIT_MILLI, "500");
    assertThat(pod.getSpec().getSchedulerName()).isEqualTo("sharegpu-scheduler");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("notebook");
              assertThat(status.getPodName()).isEqualTo("notebook");
              assertThat(status.getPhase()).isEqualTo("Pending");
              assertThat(status.getObservedGeneration())
                  .isEqualTo(sp.getMetadata().getGeneration());
            });
    assertThat(client.pods().inNamespace(ns).list().getItems()).hasSize(1);
    await().atMost(WAIT).until(() -> eventReasons("notebook").contains("CreatedPod"));

    // settled: reconciling again writes nothing and records nothing
    String version = resourceVersion("notebook");
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> version.equals(resourceVersion("notebook")));
    assertThat(eventReasons("notebook")).containsExactly("CreatedPod");
  }

  private String resourceVersion(String name) {
    return client
        .resources(SharePod.class)
        .inNamespace(ns)
        .withName(name)
        .get()
        .getMetadata()
        .getResourceVersion();
  }

  @Test
  void mirrorsTheAssignmentWithGpuModelsFromTheGpuNode() {
    create(aSharePod("bound", "0.5", g -> g.setMemory(q("8Gi"))));
    createGpuNode("gpu-node-1", GPU, "NVIDIA H100 80GB HBM3");
    Pod pod = awaitPod("bound");

    bind(pod, "gpu-node-1", GPU);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("bound");
              assertThat(status.getPhase()).isEqualTo("Scheduled");
              assertThat(status.getNodeName()).isEqualTo("gpu-node-1");
              assertThat(status.getGpuList()).isEqualTo(GPU);
              assertThat(status.getGpus().get(0).getModel()).isEqualTo("NVIDIA H100 80GB HBM3");
              assertThat(status.getMemoryMiB()).isEqualTo(8192L);
            });
    await().atMost(WAIT).until(() -> eventReasons("bound").contains("Scheduled"));
  }

  @Test
  void recreatesAPodDeletedBeforeItCompleted() {
    create(aSharePod("keep", "0.25"));
    Pod first = awaitPod("keep");
    await()
        .atMost(WAIT)
        .until(() -> status("keep") != null && "keep".equals(status("keep").getPodName()));

    client.pods().inNamespace(ns).withName("keep").delete();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Pod again = client.pods().inNamespace(ns).withName("keep").get();
              assertThat(again).isNotNull();
              assertThat(again.getMetadata().getUid()).isNotEqualTo(first.getMetadata().getUid());
            });
    await().atMost(WAIT).until(() -> eventReasons("keep").contains("RecreatedPod"));
    assertThat(client.pods().inNamespace(ns).list().getItems()).hasSize(1);
  }

  @Test
  void aPreemptedPodIsReportedNamingThePreemptorAndCreatedAgain() throws InterruptedException {
    create(aSharePod("victim", "1"));
    Pod first = awaitPod("victim");
    bind(first, "gpu-node-1", GPU);
    await().atMost(WAIT).until(() -> "Scheduled".equals(status("victim").getPhase()));

    // what kube-scheduler does: condition, delete (grace 0 here), then its Event about the victim
    markDisrupted("victim", "Running", "PreemptionByScheduler", "sharegpu-scheduler: preempting");
    client.pods().inNamespace(ns).withName("victim").withGracePeriod(0).delete();
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Pod p = client.pods().inNamespace(ns).withName("victim").get();
              return p != null && !p.getMetadata().getUid().equals(first.getMetadata().getUid());
            });
    Thread.sleep(500); // the Event comes late: the new pod exists already
    recordPreempted(first, "team-b", "train", "gpu-node-1");

    String words =
        "pod victim was preempted by higher-priority pod team-b/train on node gpu-node-1";
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("victim");
              assertThat(status.getPhase()).isEqualTo("Pending");
              assertThat(status.getConditions())
                  .anySatisfy(
                      c -> {
                        assertThat(c.getType()).isEqualTo("Preempted");
                        assertThat(c.getStatus()).isEqualTo("True");
                        assertThat(c.getReason()).isEqualTo("PreemptionByScheduler");
                        assertThat(c.getMessage()).isEqualTo(words);
                      });
            });
    await()
        .atMost(WAIT)
        .until(() -> sharePodEvents("victim").contains("Warning Preempted " + words));
    assertThat(sharePodEvents("victim"))
        .containsOnlyOnce("Warning Preempted " + words)
        .anySatisfy(e -> assertThat(e).startsWith("Warning RecreatedPod pod victim was stopped"));

    // the new pod runs: Preempted turns False, and the words stay for who reads them later
    client
        .pods()
        .inNamespace(ns)
        .withName("victim")
        .editStatus(
            p -> new PodBuilder(p).editOrNewStatus().withPhase("Running").endStatus().build());
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(status("victim").getConditions())
                    .anySatisfy(
                        c -> {
                          assertThat(c.getType()).isEqualTo("Preempted");
                          assertThat(c.getStatus()).isEqualTo("False");
                          assertThat(c.getReason()).isEqualTo("NewPodStarted");
                          assertThat(c.getMessage()).startsWith(words);
                        }));
    assertThat(sharePodEvents("victim")).containsOnlyOnce("Warning Preempted " + words);
  }

  @Test
  void aDisruptedPodLeftFailedIsDeletedAndCreatedAgainNotFinal() {
    create(aSharePod("evicted", "0.5"));
    Pod first = awaitPod("evicted");
    bind(first, "gpu-node-1", GPU);
    await().atMost(WAIT).until(() -> "Scheduled".equals(status("evicted").getPhase()));

    // the kubelet's node-pressure eviction: Failed, DisruptionTarget, and the pod stays
    markDisrupted("evicted", "Failed", "TerminationByKubelet", "The node was low on memory.");

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Pod p = client.pods().inNamespace(ns).withName("evicted").get();
              assertThat(p).isNotNull();
              assertThat(p.getMetadata().getUid()).isNotEqualTo(first.getMetadata().getUid());
              assertThat(status("evicted").getPhase()).isEqualTo("Pending");
            });
    assertThat(status("evicted").getConditions()).noneMatch(c -> c.getType().equals("Preempted"));
    assertThat(sharePodEvents("evicted")).noneMatch(e -> e.startsWith("Warning Failed"));
  }

  @Test
  void aCompletedSharePodKeepsItsFinalStatusAndIsNotRerun() throws InterruptedException {
    create(aSharePod("job", "1"));
    Pod pod = awaitPod("job");
    bind(pod, "gpu-node-2", GPU);
    client
        .pods()
        .inNamespace(ns)
        .withName("job")
        .editStatus(
            p -> new PodBuilder(p).editOrNewStatus().withPhase("Succeeded").endStatus().build());
    await().atMost(WAIT).until(() -> "Succeeded".equals(status("job").getPhase()));

    client.pods().inNamespace(ns).withName("job").delete();
    Thread.sleep(1500); // give a wrong controller time to recreate it

    assertThat(client.pods().inNamespace(ns).withName("job").get()).isNull();
    SharePodStatus status = status("job");
    assertThat(status.getPhase()).isEqualTo("Succeeded");
    assertThat(status.getNodeName()).isEqualTo("gpu-node-2");
    assertThat(eventReasons("job")).contains("Completed").doesNotContain("RecreatedPod");
  }

  @Test
  void anInvalidSharePodGetsAConditionAndAnEventButNoPod() throws InterruptedException {
    create(aSharePod("bad", "1.5"));

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("bad");
              assertThat(status).isNotNull();
              assertThat(status.getConditions())
                  .anySatisfy(
                      c -> {
                        assertThat(c.getType()).isEqualTo("Valid");
                        assertThat(c.getStatus()).isEqualTo("False");
                        assertThat(c.getMessage()).contains("not a whole number");
                      });
            });
    await().atMost(WAIT).until(() -> eventReasons("bad").contains("InvalidSharePod"));
    Thread.sleep(500);
    assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
    assertThat(eventReasons("bad")).containsOnlyOnce("InvalidSharePod");
  }

  @Test
  void aRestartedControllerAdoptsThePodAndCreatesNoOther() {
    create(aSharePod("survivor", "0.5"));
    Pod first = awaitPod("survivor");
    await().atMost(WAIT).until(() -> "survivor".equals(status("survivor").getPodName()));

    controller.stop();
    controller = newController();
    controller.start();
    await().atMost(WAIT).until(controller::isReady);
    client
        .pods()
        .inNamespace(ns)
        .withName("survivor")
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToLabels("touched", "yes")
                    .endMetadata()
                    .build());

    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(client.pods().inNamespace(ns).list().getItems())
                  .singleElement()
                  .satisfies(
                      p ->
                          assertThat(p.getMetadata().getUid())
                              .isEqualTo(first.getMetadata().getUid()));
            });
    assertThat(eventReasons("survivor")).containsOnlyOnce("CreatedPod");
  }

  @Test
  void aPodMissingFromTheCacheIsFoundThroughAlreadyExists() {
    // the SharePod's pod exists but the pod cache does not show it (here: no label; in life: the
    // cache lags after a create, or a crash came between the pod and the status write): creating it
    // answers AlreadyExists and the controller adopts what is there instead of making a second pod
    SharePod sp = aSharePod("crashed", "0.5");
    controller.stop();
    SharePod created =
        client.resources(SharePod.class).inNamespace(ns).resource(inNamespace(sp)).create();
    Pod pod = ((DesiredPod.Valid) SharePodPods.desiredPod(created, SETTINGS)).pod();
    pod.getMetadata().getLabels().remove(ShareGpuAnnotations.SHAREPOD_LABEL);
    Pod existing = client.pods().inNamespace(ns).resource(pod).create();

    controller = newController();
    controller.start();

    await()
        .atMost(WAIT)
        .until(() -> status("crashed") != null && "crashed".equals(status("crashed").getPodName()));
    assertThat(client.pods().inNamespace(ns).list().getItems())
        .singleElement()
        .satisfies(
            p -> assertThat(p.getMetadata().getUid()).isEqualTo(existing.getMetadata().getUid()));
  }

  @Test
  void aForeignPodWithTheSameNameIsReportedNotReplaced() {
    client
        .pods()
        .inNamespace(ns)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("taken")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .build())
        .create();

    create(aSharePod("taken", "0.5"));

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              SharePodStatus status = status("taken");
              assertThat(status).isNotNull();
              assertThat(status.getMessage())
                  .contains("already exists and is not controlled by this SharePod");
            });
    await().atMost(WAIT).until(() -> eventReasons("taken").contains("PodNameConflict"));
    assertThat(
            client
                .pods()
                .inNamespace(ns)
                .withName("taken")
                .get()
                .getMetadata()
                .getOwnerReferences())
        .isNullOrEmpty();
  }

  private SharePodController newController() {
    SharePodController c =
        new SharePodController(
            client,
            SETTINGS,
            List.of(),
            2,
            Duration.ofMinutes(10),
            Clock.systemUTC(),
            new SimpleMeterRegistry());
    c.selectPreemptedEventsOnServer(false); // the mock server knows no reason= field selector
    return c;
  }

  private SharePod create(SharePod sp) {
    return client.resources(SharePod.class).inNamespace(ns).resource(inNamespace(sp)).create();
  }

  private SharePod inNamespace(SharePod sp) {
    sp.getMetadata().setNamespace(ns);
    sp.getMetadata().setUid(null);
    return sp;
  }

  private Pod awaitPod(String name) {
    await().atMost(WAIT).until(() -> client.pods().inNamespace(ns).withName(name).get() != null);
    return client.pods().inNamespace(ns).withName(name).get();
  }

  private @Nullable SharePodStatus status(String name) {
    SharePod sp = client.resources(SharePod.class).inNamespace(ns).withName(name).get();
    return sp == null ? null : sp.getStatus();
  }

  private List<String> eventReasons(String name) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .map(Event::getReason)
        .toList();
  }

  /** Returns the Events on the SharePod (not on its pod) as "type reason message". */
  private List<String> sharePodEvents(String name) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(
            e ->
                name.equals(e.getInvolvedObject().getName())
                    && "SharePod".equals(e.getInvolvedObject().getKind()))
        .map(e -> e.getType() + " " + e.getReason() + " " + e.getMessage())
        .toList();
  }

  /** Sets the pod's phase and condition DisruptionTarget=True, as a disruptor does. */
  private void markDisrupted(String name, String phase, String reason, String message) {
    client
        .pods()
        .inNamespace(ns)
        .withName(name)
        .editStatus(
            p ->
                new PodBuilder(p)
                    .editOrNewStatus()
                    .withPhase(phase)
                    .addToConditions(
                        new PodConditionBuilder()
                            .withType("DisruptionTarget")
                            .withStatus("True")
                            .withReason(reason)
                            .withMessage(message)
                            .withLastTransitionTime(
                                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
                            .build())
                    .endStatus()
                    .build());
  }

  /** Records kube-scheduler's Event about a preemption victim (core/v1 view). */
  private void recordPreempted(Pod victim, String namespace, String preemptor, String node) {
    client
        .v1()
        .events()
        .inNamespace(ns)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName(victim.getMetadata().getName() + ".preempted")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Pod")
                .withApiVersion("v1")
                .withNamespace(ns)
                .withName(victim.getMetadata().getName())
                .withUid(victim.getMetadata().getUid())
                .endInvolvedObject()
                .withNewRelated()
                .withKind("Pod")
                .withApiVersion("v1")
                .withNamespace(namespace)
                .withName(preemptor)
                .withUid("uid-" + preemptor)
                .endRelated()
                .withType("Normal")
                .withReason("Preempted")
                .withMessage("Preempted by pod uid-" + preemptor + " on node " + node)
                .build())
        .create();
  }

  private void bind(Pod pod, String node, String gpu) {
    PodAssignment assignment =
        new PodAssignment(node, List.of(new ContainerAssignment("main", List.of(gpu), 8192, 1000)));
    client
        .pods()
        .inNamespace(ns)
        .withName(pod.getMetadata().getName())
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToAnnotations(AssignmentAnnotations.encode(assignment, Instant.now()))
                    .endMetadata()
                    .editSpec()
                    .withNodeName(node)
                    .endSpec()
                    .build());
  }

  private void createGpuNode(String name, String uuid, String model) {
    GPUNode node = new GPUNode();
    node.getMetadata().setName(name);
    GPUNode created = client.resources(GPUNode.class).resource(node).create();
    GPUNodeStatus status = new GPUNodeStatus();
    status.setGpus(List.of(new GpuStatus(uuid, 0, model, 81559)));
    created.setStatus(status);
    client.resources(GPUNode.class).resource(created).updateStatus();
  }
}
