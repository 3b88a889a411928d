package io.sharegpu.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.SimulatedNodes;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * JupyterHub end to end: a pod shaped as kubespawner makes it from the quarter-GPU profile of
 * examples/jupyterhub/values.yaml passes the webhook (called by the real kube-apiserver), is
 * scheduled by the real kube-scheduler's sharegpu-scheduler profile through the extender jar, and
 * ends up bound to a GPU UUID with its env reading the per-container assignment annotations.
 *
 * <p>Needs both jars: {@code ./mvnw -pl scheduler-extender,admission-webhook -am verify -De2e}.
 */
class JupyterHubSchedulingE2E {

  private static final String SUFFIX = Long.toString(System.nanoTime(), 36);
  private static final String NAMESPACE = "jhub-" + SUFFIX;
  private static final String NODE = "jhub-gpu-" + SUFFIX;
  private static final String CONFIG_NAME = "sharegpu-jhub-e2e-" + SUFFIX;
  private static final String SCOPE_LABEL = "sharegpu.io/jhub-e2e";
  private static final List<String> UUIDS =
      List.of(
          "GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64", "GPU-0b9a1c55-7d2e-4f11-a3c8-5e6f7a8b9c0d");

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static JavaApp webhook;
  private static JavaApp extender;

  @BeforeAll
  static void startEverything() throws Exception {
    Path root = TestCluster.repoRoot();
    Path extenderJar = TestApps.extenderJar();
    Path webhookJar = root.resolve("admission-webhook/target/sharegpu-admission-webhook.jar");
    for (Path jar : List.of(extenderJar, webhookJar)) {
      if (!Files.isRegularFile(jar)) {
        throw new IllegalStateException(
            jar
                + " is missing: build both apps first, e.g. ./mvnw -pl"
                + " scheduler-extender,admission-webhook -am verify -De2e");
      }
    }
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    createGpuNode();

    Path tls = Files.createTempDirectory("sharegpu-jhub-tls-");
    byte[] ca = AdmissionWebhookE2E.Certificates.createCaAndServingCert(tls);
    int webhookPort = Ports.free();
    int webhookManagement = Ports.free();
    webhook =
        JavaApp.jar(webhookJar)
            .name("admission-webhook-jhub")
            .args(
                "--server.port=" + webhookPort,
                "--server.address=127.0.0.1",
                "--management.server.port=" + webhookManagement)
            .env("SERVER_SSL_CERTIFICATE", tls.resolve("tls.crt").toString())
            .env("SERVER_SSL_CERTIFICATE_PRIVATE_KEY", tls.resolve("tls.key").toString())
            .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
            .start()
            .waitForHttp(
                "http://127.0.0.1:" + webhookManagement + "/actuator/health/readiness",
                Duration.ofSeconds(120));

    int extenderPort = Ports.free();
    int extenderManagement = Ports.free(); // debug and actuator
    extender =
        JavaApp.jar(extenderJar)
            .name("scheduler-extender-jhub")
            .args(
                "--server.port=" + extenderPort,
                "--sharegpu.extender.management-port=" + extenderManagement,
                "--server.address=127.0.0.1")
            .env("KUBECONFIG", cluster.kubeconfig().toString())
            .jvmOptions("-Xmx384m", "-XX:TieredStopAtLevel=1")
            .start()
            .waitForHttp(
                "http://127.0.0.1:" + extenderManagement + "/actuator/health/readiness",
                Duration.ofSeconds(120));

    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(NAMESPACE)
                .addToLabels(SCOPE_LABEL, "enabled")
                .endMetadata()
                .build())
        .create();
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(
            new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(CONFIG_NAME)
                .endMetadata()
                .addNewWebhook()
                .withName("pods.sharegpu.io")
                .withAdmissionReviewVersions("v1")
                .withSideEffects("None")
                .withFailurePolicy("Fail")
                .withReinvocationPolicy("IfNeeded")
                .withTimeoutSeconds(10)
                .withNewClientConfig()
                .withUrl("https://127.0.0.1:" + webhookPort + "/mutate-pods")
                .withCaBundle(Base64.getEncoder().encodeToString(ca))
                .endClientConfig()
                .withNewNamespaceSelector()
                .addToMatchLabels(SCOPE_LABEL, "enabled")
                .endNamespaceSelector()
                .addNewRule()
                .withApiGroups("")
                .withApiVersions("v1")
                .withOperations("CREATE")
                .withResources("pods")
                .withScope("Namespaced")
                .endRule()
                .endWebhook()
                .build())
        .create();
    cluster.startScheduler("http://127.0.0.1:" + extenderPort);
  }

  @AfterAll
  static void stopEverything() {
    if (cluster != null) {
      cluster.stopScheduler();
      client
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withName(CONFIG_NAME)
          .delete();
      client.namespaces().withName(NAMESPACE).delete();
      SimulatedNodes.deleteNode(client, NODE);
    }
    for (JavaApp app : new JavaApp[] {extender, webhook}) {
      if (app != null) {
        app.stop();
      }
    }
  }

  @Test
  void kubespawnerPodIsInjectedAndBoundToAGpuUuid() throws Exception {
    JupyterHubProfiles profiles =
        JupyterHubProfiles.read(TestCluster.repoRoot().resolve("examples/jupyterhub/values.yaml"));
    Pod spawned = KubespawnerPods.pod("bob", NAMESPACE, profiles.profile("gpu-quarter"));

    // the webhook config reaches kube-apiserver's informer asynchronously: retry until injected
    Pod created =
        TestPods.createUntilMutated(client, spawned, pod -> hasEnv(pod, "NVIDIA_VISIBLE_DEVICES"));
    assertThat(created.getSpec().getSchedulerName()).isEqualTo("sharegpu-scheduler");

    Pod bound =
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> client.pods().inNamespace(NAMESPACE).withName("jupyter-bob").get(),
                pod -> pod.getSpec().getNodeName() != null);

    assertThat(bound.getSpec().getNodeName()).isEqualTo(NODE);
    Map<String, String> annotations = bound.getMetadata().getAnnotations();
    String assigned = annotations.get("sharegpu.io/assigned-gpus.notebook");
    assertThat(assigned).isIn(UUIDS);
    assertThat(annotations)
        .containsEntry("sharegpu.io/mps-active-thread-percentage.notebook", "50")
        .containsEntry("sharegpu.io/mps-pinned-mem-limit.notebook", "0=10240M");
    // what the kubelet resolves at container start: each env's fieldRef names a present annotation
    Map<String, String> resolved =
        Map.of(
            "NVIDIA_VISIBLE_DEVICES", assigned,
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50",
            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=10240M");
    for (EnvVar env : bound.getSpec().getContainers().get(0).getEnv()) {
      if (resolved.containsKey(env.getName())) {
        String path = env.getValueFrom().getFieldRef().getFieldPath();
        String key = path.substring("metadata.annotations['".length(), path.length() - 2);
        assertThat(annotations.get(key)).as(env.getName()).isEqualTo(resolved.get(env.getName()));
      }
    }
  }

  private static boolean hasEnv(Pod pod, String name) {
    return pod.getSpec().getContainers().get(0).getEnv().stream()
        .anyMatch(e -> e.getName().equals(name));
  }

  private static void createGpuNode() {
    TestNodes.gpuNode(NODE)
        .host("32", "256Gi")
        .uuids(UUIDS::get)
        .gpus(2, "NVIDIA H100 80GB HBM3", 81559)
        .create(client);
  }
}
