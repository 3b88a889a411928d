package io.sharegpu.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chart installed for real: {@code make demo-real} (a real kubelet node, the images of {@code
 * make images} imported, {@code helm install} with the chart's defaults and a recorded inventory)
 * must end with every ShareGPU pod Ready and every workload given exactly its assigned GPUs; then
 * the webhook, running as a pod, refuses a pod that picks its own GPU.
 */
class ChartRealNodeE2E {

  private static final Logger log = LoggerFactory.getLogger(ChartRealNodeE2E.class);
  private static final Path ROOT = TestCluster.repoRoot();

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
}
