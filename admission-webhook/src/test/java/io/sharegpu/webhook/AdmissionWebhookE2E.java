package io.sharegpu.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.api.ShareGpuEnv;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real kube-apiserver (from {@code testcluster/}) calls the webhook jar over HTTPS with a
 * certificate made in the test: invalid requests and self-chosen GPUs are denied with the webhook's
 * message, valid pods (plain and shaped as JupyterHub's kubespawner makes them) are stored with the
 * env, mount and scheduler name injected, and namespaces outside the selector are not touched.
 */
class AdmissionWebhookE2E {

  private static final String WEBHOOK_NAME = "pods.sharegpu.io";
  private static final String SCOPE_LABEL = "sharegpu.io/webhook-e2e";
  private static final String SUFFIX = Long.toString(System.nanoTime(), 36);
  private static final String NAMESPACE = "webhook-e2e-" + SUFFIX;
  private static final String UNSCOPED_NAMESPACE = "webhook-e2e-off-" + SUFFIX;
  private static final String CONFIG_NAME = "sharegpu-webhook-e2e-" + SUFFIX;

  private static KubernetesClient client;
  private static JavaApp webhook;
  private static int managementPort;

  @BeforeAll
  static void startWebhookAndRegisterIt() throws Exception {
    TestCluster cluster = TestCluster.shared();
    client = cluster.client();
    Path tls = Files.createTempDirectory("sharegpu-webhook-tls-");
    byte[] caBundle = Certificates.createCaAndServingCert(tls);

    int port = Ports.free();
    managementPort = Ports.free();
    Path jar =
        TestCluster.repoRoot().resolve("admission-webhook/target/sharegpu-admission-webhook.jar");
    webhook =
        JavaApp.jar(jar)
            .name("admission-webhook")
            .args(
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--management.server.port=" + managementPort,
                "--management.server.address=127.0.0.1")
            .env("SERVER_SSL_CERTIFICATE", tls.resolve("tls.crt").toString())
            .env("SERVER_SSL_CERTIFICATE_PRIVATE_KEY", tls.resolve("tls.key").toString())
            .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
            .start()
            .waitForHttp(
                "http://127.0.0.1:" + managementPort + "/actuator/health/readiness",
                Duration.ofSeconds(120));

    for (String ns : List.of(NAMESPACE, UNSCOPED_NAMESPACE)) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(ns)
                  .withLabels(ns.equals(NAMESPACE) ? Map.of(SCOPE_LABEL, "enabled") : Map.of())
                  .endMetadata()
                  .build())
          .create();
    }
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(config(port, caBundle))
        .create();

    // kube-apiserver picks the configuration up from its informer: wait until it calls us
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> create(gpuPod("probe-" + System.nanoTime(), "1500")))
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("admission webhook \"" + WEBHOOK_NAME + "\" denied"));
  }

  @AfterAll
  static void unregisterAndStop() {
    if (client != null) {
      client
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withName(CONFIG_NAME)
          .delete();
      client.namespaces().withName(NAMESPACE).delete();
      client.namespaces().withName(UNSCOPED_NAMESPACE).delete();
    }
    if (webhook != null) {
      webhook.stop();
    }
  }

  @Test
  void deniesInvalidRequestWithTheParserMessage() {
    assertThatThrownBy(() -> create(gpuPod("invalid", "1500")))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining(
            "admission webhook \"pods.sharegpu.io\" denied the request: container \"main\":"
                + " sharegpu.io/gpu-milli \"1500\" is >= 1000 but not a multiple of 1000 (whole GPUs"
                + " are 1000, 2000, ...)");
    assertThat(client.pods().inNamespace(NAMESPACE).withName("invalid").get()).isNull();
  }

  @Test
  void deniesPodThatSetsNvidiaVisibleDevices() {
    Pod pod = gpuPod("picks-own-gpu", "250");
    pod.getSpec()
        .getContainers()
        .get(0)
        .setEnv(
            List.of(
                new EnvVarBuilder()
                    .withName("NVIDIA_VISIBLE_DEVICES")
                    .withValue("GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64")
                    .build()));

    assertThatThrownBy(() -> create(pod))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining(
            "denied the request: container \"main\" sets NVIDIA_VISIBLE_DEVICES itself");
    assertThat(client.pods().inNamespace(NAMESPACE).withName("picks-own-gpu").get()).isNull();
  }

  @Test
  void injectsEnvMountAndSchedulerNameIntoValidPod() {
    Pod stored = create(gpuPod("valid", "500"));

    assertThat(stored.getSpec().getSchedulerName()).isEqualTo("sharegpu-scheduler");
    assertInjected(stored, "main");
    assertThat(stored.getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("500"));
  }

  @Test
  void injectsIntoPodShapedAsKubespawnerMakesIt() throws IOException {
    JupyterHubProfiles profiles =
        JupyterHubProfiles.read(TestCluster.repoRoot().resolve("examples/jupyterhub/values.yaml"));
    Pod stored = create(KubespawnerPods.pod("alice", NAMESPACE, profiles.profile("gpu-quarter")));

    assertThat(stored.getMetadata().getName()).isEqualTo("jupyter-alice");
    assertThat(stored.getSpec().getSchedulerName()).isEqualTo("sharegpu-scheduler");
    assertInjected(stored, "notebook");
    var env = stored.getSpec().getContainers().get(0).getEnv();
    assertThat(env.get(0).getName()).isEqualTo("JUPYTERHUB_USER"); // kubespawner's env kept first
    assertThat(stored.getMetadata().getLabels())
        .containsEntry("component", "singleuser-server")
        .containsEntry("app", "jupyterhub");
    assertThat(stored.getMetadata().getAnnotations())
        .containsEntry("sharegpu.io/gpu-limit-milli", "500");
    assertThat(stored.getSpec().getContainers().get(0).getResources().getRequests())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("250"))
        .containsEntry("sharegpu.io/gpu-memory", new Quantity("10240"));
  }

  @Test
  void storesPodThatAlreadyCarriesTheInjectedFormUnchanged() {
    Pod pod = gpuPod("controller-made", "250");
    pod.getSpec().setSchedulerName("sharegpu-scheduler");
    pod.getSpec()
        .getContainers()
        .get(0)
        .setEnv(new ArrayList<>(ShareGpuEnv.downwardApiEnv("main")));
    pod.getSpec().getContainers().get(0).setVolumeMounts(List.of(ShareGpuEnv.mpsPipeMount()));
    pod.getSpec().setVolumes(List.of(ShareGpuEnv.mpsPipeVolume()));

    Pod stored = create(pod);

    assertThat(stored.getSpec().getContainers().get(0).getEnv())
        .isEqualTo(ShareGpuEnv.downwardApiEnv("main"));
    assertThat(stored.getSpec().getVolumes()).hasSize(1);
  }

  @Test
  void leavesNamespacesOutsideTheSelectorAlone() {
    Pod pod = gpuPod("unscoped", "250");
    pod.getMetadata().setNamespace(UNSCOPED_NAMESPACE);

    Pod stored = client.pods().inNamespace(UNSCOPED_NAMESPACE).resource(pod).create();

    assertThat(stored.getSpec().getSchedulerName()).isEqualTo("default-scheduler");
    assertThat(stored.getSpec().getContainers().get(0).getEnv()).isEmpty();
  }

  @Test
  void exposesAdmissionCountsOnThePlainHttpManagementPort() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + managementPort + "/actuator/prometheus"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("sharegpu_webhook_admissions_total{result=\"denied\"}");
  }

  private static void assertInjected(Pod stored, String container) {
    var c =
        stored.getSpec().getContainers().stream()
            .filter(x -> x.getName().equals(container))
            .findFirst()
            .orElseThrow();
    assertThat(c.getEnv()).containsSubsequence(ShareGpuEnv.downwardApiEnv(container));
    assertThat(c.getVolumeMounts()).contains(ShareGpuEnv.mpsPipeMount());
    assertThat(stored.getSpec().getVolumes()).contains(ShareGpuEnv.mpsPipeVolume());
  }

  private static Pod create(Pod pod) {
    return client.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  private static Pod gpuPod(String name, String milli) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .addToContainers(
            new ContainerBuilder()
                .withName("main")
                .withImage("nvcr.io/nvidia/pytorch:24.05-py3")
                .withNewResources()
                .withLimits(Map.of("sharegpu.io/gpu-milli", new Quantity(milli)))
                .endResources()
                .build())
        .endSpec()
        .build();
  }

  private static MutatingWebhookConfiguration config(int port, byte[] caBundle) {
    return new MutatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(CONFIG_NAME)
        .endMetadata()
        .addNewWebhook()
        .withName(WEBHOOK_NAME)
        .withAdmissionReviewVersions("v1")
        .withSideEffects("None")
        .withFailurePolicy("Fail")
        .withReinvocationPolicy("IfNeeded")
        .withTimeoutSeconds(10)
        .withNewClientConfig()
        .withUrl("https://127.0.0.1:" + port + "/mutate-pods")
        .withCaBundle(Base64.getEncoder().encodeToString(caBundle))
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
        .build();
  }

  /** A CA and a serving certificate for 127.0.0.1, made with openssl. */
  static final class Certificates {

    private Certificates() {}

    /** Writes ca.crt, tls.crt and tls.key into {@code dir}; returns the CA certificate (PEM). */
    static byte[] createCaAndServingCert(Path dir) throws IOException, InterruptedException {
      Files.writeString(
          dir.resolve("san.ext"),
          "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
              + "extendedKeyUsage=serverAuth\n"
              + "keyUsage=critical,digitalSignature,keyEncipherment\n",
          StandardCharsets.UTF_8);
      openssl(
          dir,
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          "ca.key",
          "-out",
          "ca.crt",
          "-days",
          "2",
          "-subj",
          "/CN=sharegpu-webhook-e2e-ca");
      openssl(
          dir,
          "req",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          "tls.key",
          "-out",
          "tls.csr",
          "-subj",
          "/CN=127.0.0.1");
      openssl(
          dir,
          "x509",
          "-req",
          "-in",
          "tls.csr",
          "-CA",
          "ca.crt",
          "-CAkey",
          "ca.key",
          "-CAcreateserial",
          "-days",
          "2",
          "-extfile",
          "san.ext",
          "-out",
          "tls.crt");
      return Files.readAllBytes(dir.resolve("ca.crt"));
    }

    private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
      List<String> command = new ArrayList<>();
      command.add("openssl");
      command.addAll(List.of(args));
      Process process =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("openssl " + String.join(" ", args) + " failed:\n" + output);
      }
    }
  }
}
