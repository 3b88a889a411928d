package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.extender.e2e.ParityScenario.Choice;
import io.sharegpu.extender.e2e.ParityScenario.ExistingSpec;
import io.sharegpu.extender.e2e.ParityScenario.NodeSpec;
import io.sharegpu.extender.e2e.ParityScenario.PodSpec;
import io.sharegpu.extender.e2e.ParityScenario.Step;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.SimulatedNodes;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The extender behind the real kube-scheduler makes the same choices as the simulator's placement
 * loop: node and GPU UUIDs, pod by pod.
 *
 * <p>Eight GPU nodes of seven models with GPUs already in use ({@link ParityScenario}) are created
 * as Node and GPUNode objects, with pods that are already bound; then the extender jar starts with
 * its default settings (so with its default policy, {@code sharegpu}) and kube-scheduler with
 * {@code examples/scheduler-config.yaml} (weight 5). 32 pods are submitted one at a time, each
 * waited for until bound, and each pod's choice is read from its {@code spec.nodeName} and {@code
 * sharegpu.io/assigned-gpus*} annotations. The same pods (with their UIDs, as read back) are then
 * replayed in-process through core's {@code Placement} with a fresh {@code sharegpu} policy fed the
 * way the extender feeds it ({@link ParityScenario#replay}), and the choices must be identical.
 *
 * <p>Where kube-scheduler could legitimately differ, the scenario rules it out:
 *
 * <ul>
 *   <li><b>Ties.</b> kube-scheduler picks at random among nodes with the same total score, the
 *       replay takes the first. The replay checks at every step that exactly one node gets the top
 *       score ({@link ParityScenarioTest} checks it without a cluster too); GPU ties inside a node
 *       are broken by GPU index on both sides.
 *   <li><b>kube-scheduler's own score plugins.</b> They are not neutralised but made to disagree:
 *       the pods request host CPU and memory and the nodes differ in CPU size and use ({@code
 *       NodeResourcesFit}, {@code NodeResourcesBalancedAllocation}), and every node but the T4 one
 *       lists the pods' image ({@code ImageLocality} gives them 100 more). The extender answers 10
 *       for the policy's best node and at most 3 for the others, a lead of at least 350 points with
 *       weight 5, which those plugins cannot undo. With core's scores passed through unchanged (a
 *       runner-up at 8, 100 points behind) this test fails: the second pod goes to an A100 node
 *       instead of the policy's T4.
 *   <li><b>kube-scheduler's own filters.</b> Host CPU always fits (checked by {@link
 *       ParityScenarioTest}), node-level sums of {@code sharegpu.io/*} are looser than per-GPU fit,
 *       and the pods select the scenario's nodes by label, so the candidates are the nodes the
 *       replay considers. With fewer than 100 nodes {@code percentageOfNodesToScore} scores them
 *       all.
 *   <li><b>What the policy learns.</b> The extender shows a pod to the policy once, at its first
 *       filter; pods that were bound before it started are in the ledger but never observed. The
 *       replay does the same. No other pod may be pending for {@code sharegpu-scheduler} meanwhile.
 * </ul>
 */
class PolicyParityE2E {

  private static final String NS = "policy-parity-e2e";
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static JavaApp extender;
  private static int port;
  private static int managementPort;

  @BeforeAll
  static void startAll() {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    cluster.applyNamespace(NS);
    awaitNoOtherPendingGpuPods();
    awaitNoOtherGpuNodes();
    String now = Instant.now().toString();
    for (NodeSpec n : ParityScenario.NODES) {
      createNode(n, now);
    }
    for (ExistingSpec e : ParityScenario.EXISTING) {
      client
          .pods()
          .inNamespace(NS)
          .resource(ParityScenario.existingPod(e, NS, ShareGpuAnnotations.SCHEDULER_NAME))
          .create();
    }
    port = Ports.free();
    managementPort = Ports.free();
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    // no --sharegpu.extender.policy: the default policy is the one under test
    extender =
        TestApps.startAndAwaitReady(
            TestApps.extender(cluster, port, managementPort).name("extender-parity"),
            managementPort);
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              String body = get("/debug/allocations");
              for (ExistingSpec e : ParityScenario.EXISTING) {
                assertThat(body).contains(NS + "/" + e.name() + "\"");
              }
            });
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
      for (NodeSpec n : ParityScenario.NODES) {
        client.nodes().withName(n.name()).delete();
        client.resources(GPUNode.class).withName(n.name()).delete();
      }
    }
  }

  @Test
  void kubeSchedulerWithTheExtenderChoosesWhatThePolicyChoosesInProcess() {
    List<Choice> observed = new ArrayList<>();
    for (PodSpec p : ParityScenario.PODS) {
      client
          .pods()
          .inNamespace(NS)
          .resource(ParityScenario.newPod(p, NS, ShareGpuAnnotations.SCHEDULER_NAME))
          .create();
      observed.add(awaitBound(p.name()));
    }

    List<GPUNode> gpuNodes =
        ParityScenario.NODES.stream()
            .map(n -> client.resources(GPUNode.class).withName(n.name()).get())
            .toList();
    List<Pod> existing = ParityScenario.EXISTING.stream().map(e -> pod(e.name())).toList();
    List<Pod> sequence = ParityScenario.PODS.stream().map(p -> pod(p.name())).toList();
    List<Step> replay = ParityScenario.replay("sharegpu", gpuNodes, existing, sequence);

    // the scenario is decisive: one best node per step, so kube-scheduler has no tie to break
    for (Step s : replay) {
      if (s.feasible() > 1) {
        assertThat(s.scores().values().stream().filter(v -> v == 10).count())
            .as("policy's best node for %s is unique: %s", s.choice().pod(), s.scores())
            .isEqualTo(1);
      }
    }
    List<Choice> expected = replay.stream().map(Step::choice).toList();
    List<String> differences = new ArrayList<>();
    for (int i = 0; i < expected.size(); i++) {
      if (!expected.get(i).equals(observed.get(i))) {
        differences.add(
            "cluster: "
                + observed.get(i)
                + "\n  in-process: "
                + expected.get(i)
                + "\n  policy scores: "
                + replay.get(i).scores());
      }
    }
    assertThat(differences)
        .as(
            "pods placed differently by kube-scheduler + extender than in-process (after the first,"
                + " the two run on different states)")
        .isEmpty();
    assertThat(observed).isEqualTo(expected);
    // the scenario uses more than one node, so a constant answer would not pass
    assertThat(observed.stream().map(Choice::node).distinct().count()).isGreaterThanOrEqualTo(3);
  }

  // ---------------------------------------------------------------------------------- helpers

  private static Choice awaitBound(String name) {
    Choice[] out = new Choice[1];
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              Pod p = pod(name);
              assertThat(p.getSpec().getNodeName()).as(name + " bound").isNotNull();
              assertThat(p.getMetadata().getAnnotations())
                  .containsKey(ShareGpuAnnotations.ASSIGNED_GPUS);
              out[0] = ParityScenario.choice(p).orElseThrow();
            });
    return Objects.requireNonNull(out[0]);
  }

  private static Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  /** Pods of other tests that the scheduler would show to the extender (and so to its policy). */
  /**
   * The policy charges for GPUs of models that restricted pods need, relative to the cluster's GPUs
   * of each model: GPUNodes left by other tests would change its choices but not the replay's.
   */
  private static void awaitNoOtherGpuNodes() {
    Set<String> ours = new HashSet<>();
    ParityScenario.NODES.forEach(n -> ours.add(n.name()));
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(
                        client.resources(GPUNode.class).list().getItems().stream()
                            .map(g -> g.getMetadata().getName())
                            .filter(name -> !ours.contains(name))
                            .toList())
                    .as("GPUNodes of other tests still in the cluster")
                    .isEmpty());
  }

  private static void awaitNoOtherPendingGpuPods() {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(
                        client.pods().inAnyNamespace().list().getItems().stream()
                            .filter(
                                p ->
                                    ShareGpuAnnotations.SCHEDULER_NAME.equals(
                                        p.getSpec().getSchedulerName()))
                            .filter(p -> p.getSpec().getNodeName() == null)
                            .map(
                                p ->
                                    p.getMetadata().getNamespace()
                                        + "/"
                                        + p.getMetadata().getName())
                            .toList())
                    .as("pods pending for " + ShareGpuAnnotations.SCHEDULER_NAME)
                    .isEmpty());
  }

  private static String get(String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  private static void createNode(NodeSpec n, String now) {
    List<ContainerImage> images =
        n.name().equals(ParityScenario.NODE_WITHOUT_IMAGE)
            ? List.of()
            : List.of(
                new ContainerImageBuilder()
                    .withNames(ParityScenario.IMAGE)
                    .withSizeBytes(ParityScenario.IMAGE_BYTES)
                    .build());
    SimulatedNodes.createReadyNode(
        client,
        n.name(),
        Map.of(ParityScenario.NODE_LABEL, ParityScenario.NODE_LABEL_VALUE),
        SimulatedNodes.capacity(
            Integer.toString(n.cpuCores()), "256Gi", n.count() * 1000L, n.count() * n.memoryMib()),
        images);
    GPUNode g = ParityScenario.gpuNode(n, now);
    GPUNode created = client.resources(GPUNode.class).resource(gpuNodeWithoutStatus(g)).create();
    created.setStatus(g.getStatus());
    client.resources(GPUNode.class).resource(created).updateStatus();
  }

  private static GPUNode gpuNodeWithoutStatus(GPUNode g) {
    GPUNode copy = new GPUNode();
    copy.setMetadata(g.getMetadata());
    copy.setSpec(g.getSpec());
    return copy;
  }
}
