package io.sharegpu.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The chart installed for real: {@code make demo-real} (a real kubelet node, the images of {@code
 * make images} imported, {@code helm install} with the chart's defaults and a recorded inventory)
 * must end with every ShareGPU pod Ready and every workload given exactly its assigned GPUs. Then,
 * in order: the webhook, running as a pod, refuses a pod that picks its own GPU; deleting the
 * extender replica that holds the bind Lease in the middle of a burst over-commits no GPU; kubelet
 * restarts (plain, and with the device manager's folder emptied) keep the node's GPU capacity and
 * every running workload; a capacity zeroed as a kubelet's reset writes it is restored at once, and
 * the kubelet refuses a pod bound past it; enforcement.mode=mps runs the MPS DaemonSet and its pipe
 * reaches the node agent and both kinds of GPU pod; {@code helm upgrade} rolls the extenders and
 * their rebuilt ledger equals the old one; {@code helm uninstall} removes ShareGPU and leaves the
 * workloads running.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChartRealNodeE2E {

  private static final Logger log = LoggerFactory.getLogger(ChartRealNodeE2E.class);
  private static final Path ROOT = TestCluster.repoRoot();
  private static final String NODE = "node1";

  private static Path dir;
  private static String output;
  private static int exitCode;
  private static KubernetesClient client;

  @BeforeAll
  static void runTheRealDemo() throws Exception {
    dir = Files.createTempDirectory("sharegpu-chart-real-node-");
    Path logFile = dir.resolveSibling(dir.getFileName() + ".log");
    Process demo =
        new ProcessBuilder(
                ROOT.resolve("examples/demo-real/run.sh").toString(),
                "--keep",
                "--dir",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(logFile.toFile())
            .start();
    boolean ended = demo.waitFor(20, TimeUnit.MINUTES);
    if (!ended) {
      demo.destroyForcibly();
    }
    output = Files.readString(logFile, StandardCharsets.UTF_8);
    log.info("make demo-real:\n{}", output);
    assertThat(ended).as("demo-real ended within 20 minutes").isTrue();
    exitCode = demo.exitValue();
    if (exitCode == 0) {
      client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(Files.readString(dir.resolve("kubeconfig"))))
              .build();
    }
  }

  @AfterAll
  static void stop() throws IOException, InterruptedException {
    if (client != null) {
      client.close();
    }
    if (dir != null && Files.exists(dir.resolve("env"))) {
      new ProcessBuilder(
              ROOT.resolve("examples/demo-real/run.sh").toString(), "--stop", dir.toString())
          .inheritIO()
          .start()
          .waitFor(3, TimeUnit.MINUTES);
    }
  }

  @Test
  @Order(1)
  void everyComponentRunsAsAPodAndEveryWorkloadGetsItsAssignedGpus() {
    assertThat(exitCode).as(output).isZero();
    List<Pod> components = client.pods().inNamespace("sharegpu-system").list().getItems();
    assertThat(components)
        .extracting(p -> p.getMetadata().getLabels().get("app.kubernetes.io/component"))
        .contains("extender", "scheduler", "controller", "webhook", "node-agent");
    assertThat(components)
        .allSatisfy(
            p -> {
              assertThat(p.getStatus().getPhase()).isEqualTo("Running");
              assertThat(p.getStatus().getContainerStatuses())
                  .allSatisfy(c -> assertThat(c.getReady()).isTrue());
            });
    assertThat(output)
        .contains("research/notebook-alice: assigned GPU-")
        .contains("research/jupyter-bob: assigned GPU-")
        .containsPattern("research/train-[a-z0-9]+: assigned GPU-[^,\\s]+,GPU-")
        .doesNotContain("MISMATCH");
  }

  @Test
  @Order(2)
  void webhookRunningAsAPodRefusesAPodThatPicksItsOwnGpu() {
    assertThat(exitCode).as(output).isZero();
    Pod selfPicked =
        new PodBuilder()
            .withNewMetadata()
            .withName("picks-its-own-gpu")
            .withNamespace("research")
            .endMetadata()
            .withNewSpec()
            .withSchedulerName("sharegpu-scheduler")
            .addNewContainer()
            .withName("main")
            .withImage("registry.local/sharegpu/busybox:1.35")
            .withImagePullPolicy("Never")
            .withCommand("sleep", "60")
            .withEnv(new EnvVar("NVIDIA_VISIBLE_DEVICES", "all", null))
            .withNewResources()
            .withLimits(Map.of("sharegpu.io/gpu-milli", new Quantity("100")))
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    assertThatThrownBy(() -> client.pods().resource(selfPicked).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("NVIDIA_VISIBLE_DEVICES");
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                client.pods().inNamespace("research").withName("picks-its-own-gpu").get() == null);
  }

  @Test
  @Order(3)
  void killingTheBindLeaderMidBurstNeverOverCommitsAGpu() {
    assertThat(exitCode).as(output).isZero();
    // 1,500 milli are free (one GPU half used by the two notebooks, one GPU empty): 6 of the 8
    // quarter-GPU pods fit (four quarters' default memory fits a GPU); the extender that holds the
    // bind Lease is deleted while they are placed
    for (int i = 0; i < 8; i++) {
      client.pods().resource(quarterGpuPod("burst-" + i)).create();
      if (i == 2) {
        String leader =
            client
                .leases()
                .inNamespace("sharegpu-system")
                .withName("sharegpu-extender-bind")
                .get()
                .getSpec()
                .getHolderIdentity();
        String leaderIp = leader.replaceAll("^https?://([^:]+):.*$", "$1");
        Pod leaderPod =
            client.pods().inNamespace("sharegpu-system").list().getItems().stream()
                .filter(p -> leaderIp.equals(p.getStatus().getPodIP()))
                .findFirst()
                .orElseThrow(
                    () -> new AssertionError("no extender pod holds the bind Lease " + leader));
        log.info("deleting the bind leader {}", leaderPod.getMetadata().getName());
        client.pods().resource(leaderPod).withGracePeriod(0).delete();
      }
    }
    // every pod is bound or reported unschedulable, and those bound fill the free compute
    await()
        .atMost(Duration.ofMinutes(4))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              List<Pod> burst = burst();
              assertThat(burst)
                  .hasSize(8)
                  .allSatisfy(
                      p ->
                          assertThat(
                                  p.getSpec().getNodeName() != null
                                      || p.getStatus().getConditions().stream()
                                          .anyMatch(
                                              c ->
                                                  c.getType().equals("PodScheduled")
                                                      && c.getStatus().equals("False")))
                              .isTrue());
              assertThat(burst).filteredOn(p -> p.getSpec().getNodeName() != null).hasSize(6);
            });
    // the replacement replica is Ready (it rebuilt its ledger from the annotations first)
    await()
        .atMost(Duration.ofMinutes(3))
        .untilAsserted(
            () ->
                assertThat(extenderPods())
                    .hasSize(2)
                    .allSatisfy(p -> assertThat(ready(p)).isTrue()));
    // no GPU holds more than 1000 milli, counting every pod's assignment
    Map<String, Long> milli = new HashMap<>();
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      Map<String, String> annotations = pod.getMetadata().getAnnotations();
      String gpus = annotations == null ? null : annotations.get("sharegpu.io/assigned-gpus");
      if (gpus == null || pod.getStatus().getPhase().equals("Succeeded")) {
        continue;
      }
      long request =
          Long.parseLong(
              pod.getSpec()
                  .getContainers()
                  .get(0)
                  .getResources()
                  .getLimits()
                  .get("sharegpu.io/gpu-milli")
                  .getNumericalAmount()
                  .toBigInteger()
                  .toString());
      String[] uuids = gpus.split(",");
      for (String uuid : uuids) {
        milli.merge(uuid, request >= 1000 ? 1000 : request, Long::sum);
      }
    }
    assertThat(milli.values()).allSatisfy(m -> assertThat(m).isLessThanOrEqualTo(1000));
    assertThat(milli).hasSize(4);
  }

  @Test
  @Order(4)
  void kubeletRestartsPlainAndWithoutTheDeviceCheckpointKeepTheCapacityAndEveryWorkload()
      throws Exception {
    assertThat(exitCode).as(output).isZero();
    clearBurst();
    Map<String, String> containers = workloadContainers();
    assertThat(containers).hasSize(3);
    for (boolean forgetDevices : List.of(false, true)) {
      List<String> samples = Collections.synchronizedList(new ArrayList<>());
      Thread sampler =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  samples.add(gpuMilli("capacity") + "/" + gpuMilli("allocatable"));
                  try {
                    Thread.sleep(100);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "capacity-sampler");
      sampler.start();
      if (forgetDevices) {
        testcluster("restart-kubelet", "--dir", dir.toString(), "--forget-devices");
      } else {
        testcluster("restart-kubelet", "--dir", dir.toString());
      }
      // the restarted kubelet syncs and re-admits every pod bound to it within a few seconds
      Thread.sleep(10_000);
      sampler.interrupt();
      sampler.join();
      log.info("kubelet restart (forget devices: {}): {} samples", forgetDevices, samples.size());
      assertThat(samples).isNotEmpty().containsOnly("4000/4000");
      assertThat(workloadContainers())
          .as("the same containers, still running")
          .isEqualTo(containers);
    }
  }

  @Test
  @Order(5)
  void capacityZeroedAsTheKubeletResetsItIsRestoredAtOnceAndTheKubeletAdmitsNothingPastIt()
      throws Exception {
    assertThat(exitCode).as(output).isZero();
    clearBurst();
    // What a kubelet writes when it registers without a device-manager checkpoint. The node agent's
    // heartbeat is 30 s; its watch on the Node must put the capacity back well before that.
    long zeroedAt = System.nanoTime();
    client
        .nodes()
        .withName(NODE)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"capacity\":{\"sharegpu.io/gpu-milli\":\"0\",\"sharegpu.io/gpu-memory\":\"0\"},"
                + "\"allocatable\":{\"sharegpu.io/gpu-milli\":\"0\",\"sharegpu.io/gpu-memory\":\"0\"}}}");
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> gpuMilli("capacity") == 4000 && gpuMilli("allocatable") == 4000);
    log.info(
        "capacity restored {} ms after it was zeroed", (System.nanoTime() - zeroedAt) / 1_000_000);

    // 2,500 of the 4,000 milli are taken. A pod bound by hand past the scheduler and the webhook (a
    // namespace opted out of it) asking for 2,000 is refused by the kubelet itself.
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("bypass")
                .addToLabels("sharegpu.io/webhook", "disabled")
                .endMetadata()
                .build())
        .create();
    try {
      Pod pastCapacity =
          new PodBuilder(quarterGpuPod("past-capacity"))
              .editMetadata()
              .withNamespace("bypass")
              .withLabels(Map.of())
              .endMetadata()
              .editSpec()
              .withNodeName(NODE)
              .editFirstContainer()
              .withNewResources()
              .withLimits(Map.of("sharegpu.io/gpu-milli", new Quantity("2000")))
              .endResources()
              .endContainer()
              .endSpec()
              .build();
      client.pods().resource(pastCapacity).create();
      await()
          .atMost(Duration.ofMinutes(1))
          .untilAsserted(
              () -> {
                Pod pod = client.pods().inNamespace("bypass").withName("past-capacity").get();
                assertThat(pod.getStatus().getPhase()).isEqualTo("Failed");
                assertThat(pod.getStatus().getReason()).isEqualTo("OutOfsharegpu.io/gpu-milli");
              });
    } finally {
      client.namespaces().withName("bypass").delete();
    }
  }

  @Test
  @Order(6)
  void mpsModeRunsTheDaemonSetWhosePipeReachesTheNodeAgentAndEveryGpuPod() throws Exception {
    assertThat(exitCode).as(output).isZero();
    clearBurst();
    // A stand-in for nvidia-cuda-mps-control (the node has no GPU): it creates the control pipe.
    Path image = dir.resolve("fake-mps-control.oci.tar");
    testcluster(
        "busybox-image",
        "--out",
        image.toString(),
        "--ref",
        "registry.local/sharegpu/fake-mps-control:1",
        "--add",
        ROOT.resolve("charts/src/test/resources/fake-mps/nvidia-cuda-mps-control")
            + ":/usr/local/bin/nvidia-cuda-mps-control");
    testcluster("node-import", "--dir", dir.toString(), image.toString());
    helm(
        "upgrade",
        "sharegpu",
        ROOT.resolve("charts/sharegpu").toString(),
        "--namespace",
        "sharegpu-system",
        "--reuse-values",
        "--set",
        "enforcement.mode=mps",
        "--set",
        "mpsDaemon.image.repository=registry.local/sharegpu/fake-mps-control",
        "--set-string",
        "mpsDaemon.image.tag=1",
        "--set",
        "mpsDaemon.image.pullPolicy=Never");
    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              List<Pod> daemons = componentPods("mps-daemon");
              assertThat(daemons).singleElement().satisfies(p -> assertThat(ready(p)).isTrue());
              Pod daemon = daemons.get(0);
              assertThat(daemon.getSpec().getHostIPC()).isTrue();
              assertThat(daemon.getSpec().getRuntimeClassName()).isEqualTo("nvidia");
              // the node agent sees the control pipe through its own mount of the host folder
              assertThat(gpuNodeEnforcement()).isEqualTo("mps");
              // every webhook replica now mounts the pipe into GPU pods
              assertThat(componentPods("webhook"))
                  .hasSize(2)
                  .allSatisfy(
                      p -> {
                        assertThat(ready(p)).isTrue();
                        assertThat(p.getSpec().getContainers().get(0).getEnv())
                            .contains(new EnvVar("SHAREGPU_WEBHOOK_MOUNT_MPS_PIPE", "true", null));
                      });
            });
    String probe =
        "if [ -p /tmp/nvidia-mps/control ]; then echo 'mps pipe: present'; else echo 'mps pipe:"
            + " missing'; fi; env | grep ^CUDA_MPS_ | sort; exec sleep 3600";
    Pod plain =
        new PodBuilder(quarterGpuPod("mps-client"))
            .editMetadata()
            .withLabels(Map.of("mps", "yes"))
            .endMetadata()
            .editSpec()
            .editFirstContainer()
            .withCommand("sh", "-c", probe)
            .endContainer()
            .endSpec()
            .build();
    client.pods().resource(plain).create();
    client
        .resource(
            """
            apiVersion: sharegpu.io/v1alpha1
            kind: SharePod
            metadata:
              name: mps-notebook
              namespace: research
            spec:
              gpu:
                request: 250m
                limit: 300m
              template:
                metadata:
                  labels:
                    mps: "yes"
                spec:
                  containers:
                    - name: main
                      image: registry.local/sharegpu/busybox:1.35
                      imagePullPolicy: Never
                      command: [sh, -c, "%s"]
            """
                .formatted(probe.replace("\"", "\\\"")))
        .create();
    try {
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(2))
          .untilAsserted(
              () -> {
                List<Pod> pods =
                    client.pods().inNamespace("research").withLabel("mps", "yes").list().getItems();
                assertThat(pods).hasSize(2);
                for (Pod pod : pods) {
                  assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
                  Map<String, String> annotations = pod.getMetadata().getAnnotations();
                  String logs =
                      client
                          .pods()
                          .inNamespace("research")
                          .withName(pod.getMetadata().getName())
                          .getLog();
                  assertThat(logs)
                      .as(pod.getMetadata().getName())
                      .contains("mps pipe: present")
                      .contains("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps")
                      .contains(
                          "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE="
                              + annotations.get("sharegpu.io/mps-active-thread-percentage"))
                      .contains(
                          "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT="
                              + annotations.get("sharegpu.io/mps-pinned-mem-limit"));
                }
              });
    } finally {
      client
          .genericKubernetesResources("sharegpu.io/v1alpha1", "SharePod")
          .inNamespace("research")
          .withName("mps-notebook")
          .delete();
      client.pods().inNamespace("research").withName("mps-client").withGracePeriod(0).delete();
      await()
          .atMost(Duration.ofMinutes(2))
          .until(
              () ->
                  client
                      .pods()
                      .inNamespace("research")
                      .withLabel("mps", "yes")
                      .list()
                      .getItems()
                      .isEmpty());
    }
  }

  @Test
  @Order(7)
  void helmUpgradeRollsTheExtendersWithoutLosingAnAllocationAndUninstallLeavesWorkloadsRunning()
      throws Exception {
    assertThat(exitCode).as(output).isZero();
    clearBurst();
    String before = allocations();
    assertThat(before).contains("research/notebook-alice").contains("research/jupyter-bob");
    helm(
        "upgrade",
        "sharegpu",
        ROOT.resolve("charts/sharegpu").toString(),
        "--namespace",
        "sharegpu-system",
        "--reuse-values",
        "--set",
        "extender.podAnnotations.rolled=yes");
    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(3))
        .untilAsserted(
            () ->
                assertThat(extenderPods())
                    .hasSize(2)
                    .allSatisfy(
                        p -> {
                          assertThat(p.getMetadata().getAnnotations())
                              .containsEntry("rolled", "yes");
                          assertThat(ready(p)).isTrue();
                        }));
    assertThat(allocations()).isEqualTo(before);

    helm("uninstall", "sharegpu", "--namespace", "sharegpu-system", "--wait");
    await()
        .atMost(Duration.ofMinutes(3))
        .until(() -> client.pods().inNamespace("sharegpu-system").list().getItems().isEmpty());
    assertThat(client.pods().inNamespace("research").list().getItems())
        .hasSize(3)
        .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
    assertThat(
            client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems())
        .isEmpty();
  }

  private static Pod quarterGpuPod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("research")
        .addToLabels("burst", "yes")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("sharegpu-scheduler")
        .addNewContainer()
        .withName("main")
        .withImage("registry.local/sharegpu/busybox:1.35")
        .withImagePullPolicy("Never")
        .withCommand("sleep", "3600")
        .withNewResources()
        .withLimits(Map.of("sharegpu.io/gpu-milli", new Quantity("250")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static List<Pod> extenderPods() {
    return componentPods("extender");
  }

  private static List<Pod> componentPods(String component) {
    return client
        .pods()
        .inNamespace("sharegpu-system")
        .withLabel("app.kubernetes.io/component", component)
        .list()
        .getItems();
  }

  /** Deletes the burst's pods of test 3 (if any) and waits until they are gone. */
  private static void clearBurst() {
    client.pods().inNamespace("research").withLabel("burst", "yes").withGracePeriod(0).delete();
    await().atMost(Duration.ofMinutes(2)).until(() -> burst().isEmpty());
  }

  /** The research workloads: pod name to the ID of its running container. */
  private static Map<String, String> workloadContainers() {
    Map<String, String> containers = new HashMap<>();
    for (Pod pod : client.pods().inNamespace("research").list().getItems()) {
      assertThat(pod.getStatus().getPhase()).as(pod.getMetadata().getName()).isEqualTo("Running");
      containers.put(
          pod.getMetadata().getName(),
          pod.getStatus().getContainerStatuses().get(0).getContainerID());
    }
    return containers;
  }

  /** The node's sharegpu.io/gpu-milli in status.capacity or status.allocatable (-1 if absent). */
  private static int gpuMilli(String field) {
    var status = client.nodes().withName(NODE).get().getStatus();
    Map<String, Quantity> values =
        field.equals("capacity") ? status.getCapacity() : status.getAllocatable();
    Quantity q = values == null ? null : values.get("sharegpu.io/gpu-milli");
    return q == null ? -1 : q.getNumericalAmount().intValue();
  }

  private static String gpuNodeEnforcement() {
    var gpuNode =
        client.genericKubernetesResources("sharegpu.io/v1alpha1", "GPUNode").withName(NODE).get();
    Object status = gpuNode == null ? null : gpuNode.getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> m ? String.valueOf(m.get("enforcement")) : "none yet";
  }

  /** Runs testcluster/NAME with ARGS and asserts it succeeds. */
  private static void testcluster(String name, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(ROOT.resolve("testcluster/" + name).toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    log.info("testcluster/{}:\n{}", name, out);
    assertThat(process.exitValue()).as(out).isZero();
  }

  private static List<Pod> burst() {
    return client.pods().inNamespace("research").withLabel("burst", "yes").list().getItems();
  }

  private static boolean ready(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  /**
   * The extender's ledger, GET /debug/allocations through the API server's service proxy: one "uuid
   * namespace/pod milli memory state" line per allocation, sorted.
   */
  private static String allocations() throws IOException, InterruptedException {
    String env = Files.readString(dir.resolve("env"));
    String bin =
        env.lines().filter(l -> l.startsWith("BIN_DIR=")).findFirst().orElseThrow().substring(8);
    Process get =
        new ProcessBuilder(
                Path.of(bin.replace("'", "")).resolve("kubectl").toString(),
                "--kubeconfig",
                dir.resolve("kubeconfig").toString(),
                "get",
                "--raw",
                "/api/v1/namespaces/sharegpu-system/services/http:sharegpu-extender:management/proxy/debug/allocations")
            .start();
    String json = new String(get.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(get.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(get.exitValue()).as(json).isZero();
    JsonNode root = JsonMapper.builder().build().readTree(json);
    JsonNode items =
        root.isArray()
            ? root
            : root.has("allocations") ? root.get("allocations") : root.get("items");
    List<String> lines = new ArrayList<>();
    for (JsonNode a : items) {
      lines.add(
          String.join(
              " ",
              text(a, "uuid"),
              text(a, "pod"),
              text(a, "container"),
              text(a, "computeMilli"),
              text(a, "memoryMib"),
              text(a, "state")));
    }
    Collections.sort(lines);
    return String.join("\n", lines);
  }

  private static String text(JsonNode row, String key) {
    return row.has(key) ? row.get(key).asString() : "-";
  }

  private static void helm(String... args) throws IOException, InterruptedException {
    Process build = new ProcessBuilder(ROOT.resolve("testcluster/build-helm").toString()).start();
    String helm = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(build.waitFor(10, TimeUnit.MINUTES)).isTrue();
    List<String> command = new ArrayList<>(List.of(helm));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("KUBECONFIG", dir.resolve("kubeconfig").toString());
    builder.environment().put("HELM_CACHE_HOME", dir.resolve("helm/cache").toString());
    builder.environment().put("HELM_CONFIG_HOME", dir.resolve("helm/config").toString());
    builder.environment().put("HELM_DATA_HOME", dir.resolve("helm/data").toString());
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(6, TimeUnit.MINUTES)).isTrue();
    log.info("helm {}:\n{}", String.join(" ", args), out);
    assertThat(process.exitValue()).as(out).isZero();
  }
}
