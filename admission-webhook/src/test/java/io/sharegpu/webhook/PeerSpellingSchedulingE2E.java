package io.sharegpu.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Migration end to end: in namespaces labelled {@code sharegpu.io/translate=<peer>}, routed as the
 * chart routes them (the plain entry plus one entry per peer at {@code
 * /mutate-pods/translate/<peer>}), a pod written for each peer is translated by the webhook jar
 * (called by the real kube-apiserver), scheduled by the real kube-scheduler through the extender
 * jar, and bound to a GPU UUID with the share's memory and compute cap in its assignment
 * annotations. A pod mixing two peers is denied with the webhook's message.
 *
 * <p>Needs both jars: {@code ./mvnw -pl scheduler-extender,admission-webhook -am verify -De2e}.
 */
class PeerSpellingSchedulingE2E {

  private static final String SUFFIX = Long.toString(System.nanoTime(), 36);
  private static final String NODE = "peers-gpu-" + SUFFIX;
  private static final String CONFIG_NAME = "sharegpu-peers-e2e-" + SUFFIX;
  private static final String SCOPE_LABEL = "sharegpu.io/peers-e2e";
  private static final String TRANSLATE_LABEL = "sharegpu.io/translate";
  private static final List<String> PEERS =
      List.of("hami", "kubeshare", "kubeshare2", "gpu-manager", "gpushare");
  private static final List<String> UUIDS =
      List.of(
          "GPU-5c1e2d3f-0a1b-4c2d-8e3f-112233445566", "GPU-6d2f3e4a-1b2c-4d3e-9f4a-223344556677");

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
    TestNodes.gpuNode(NODE)
        .host("32", "256Gi")
        .uuids(UUIDS::get)
        .gpus(2, "NVIDIA H100 80GB HBM3", 81559)
        .create(client);

    Path tls = Files.createTempDirectory("sharegpu-peers-tls-");
    byte[] ca = AdmissionWebhookE2E.Certificates.createCaAndServingCert(tls);
    int webhookPort = Ports.free();
    int webhookManagement = Ports.free();
    webhook =
        JavaApp.jar(webhookJar)
            .name("admission-webhook-peers")
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
            .name("scheduler-extender-peers")
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

    for (String peer : PEERS) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(namespace(peer))
                  .addToLabels(SCOPE_LABEL, "enabled")
                  .addToLabels(TRANSLATE_LABEL, peer)
                  .endMetadata()
                  .build())
          .create();
    }
    String base = "https://127.0.0.1:" + webhookPort + "/mutate-pods";
    String caBundle = Base64.getEncoder().encodeToString(ca);
    List<MutatingWebhook> webhooks = new ArrayList<>();
    webhooks.add(entry("pods.sharegpu.io", base, caBundle, null));
    for (String peer : PEERS) {
      webhooks.add(
          entry(peer + ".translate.sharegpu.io", base + "/translate/" + peer, caBundle, peer));
    }
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(
            new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(CONFIG_NAME)
                .endMetadata()
                .withWebhooks(webhooks)
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
      for (String peer : PEERS) {
        client.namespaces().withName(namespace(peer)).delete();
      }
      SimulatedNodes.deleteNode(client, NODE);
    }
    for (JavaApp app : new JavaApp[] {extender, webhook}) {
      if (app != null) {
        app.stop();
      }
    }
  }

  @Test
  void aPodWrittenForEachPeerIsTranslatedAndBoundToAGpuUuid() {
    // peer -> {resources, annotations, labels, expected milli, memory MiB, MPS percentage}
    record Case(
        String peer,
        Map<String, String> resources,
        Map<String, String> annotations,
        Map<String, String> labels,
        String milli,
        String memoryMib,
        String percentage) {}
    List<Case> cases =
        List.of(
            new Case(
                "hami",
                Map.of(
                    "nvidia.com/gpu",
                    "1",
                    "nvidia.com/gpumem",
                    "3000",
                    "nvidia.com/gpucores",
                    "30"),
                Map.of(),
                Map.of(),
                "300",
                "3000",
                "30"),
            new Case(
                "gpu-manager",
                Map.of("tencent.com/vcuda-core", "50", "tencent.com/vcuda-memory", "30"),
                Map.of(),
                Map.of(),
                "500",
                "7680",
                "50"),
            new Case(
                "gpushare",
                Map.of("aliyun.com/gpu-mem", "3"),
                Map.of(),
                Map.of(),
                "1",
                "3072",
                "100"),
            new Case(
                "kubeshare",
                Map.of(),
                Map.of(
                    "kubeshare/gpu_request", "0.25",
                    "kubeshare/gpu_limit", "0.5",
                    "kubeshare/gpu_mem", "1073741824"),
                Map.of(),
                "250",
                "1024",
                "50"),
            new Case(
                "kubeshare2",
                Map.of(),
                Map.of(),
                Map.of(
                    "sharedgpu/gpu_request", "0.2",
                    "sharedgpu/gpu_limit", "0.4",
                    "sharedgpu/gpu_mem", "2147483648"),
                "200",
                "2048",
                "40"));
    for (Case c : cases) {
      Pod created = createWhenRouted(pod(c.peer(), c.resources(), c.annotations(), c.labels()));
      Map<String, Quantity> limits =
          created.getSpec().getContainers().get(0).getResources().getLimits();
      assertThat(limits)
          .as(c.peer())
          .containsEntry("sharegpu.io/gpu-milli", new Quantity(c.milli()))
          .containsEntry("sharegpu.io/gpu-memory", new Quantity(c.memoryMib()))
          .containsOnlyKeys("cpu", "sharegpu.io/gpu-milli", "sharegpu.io/gpu-memory");
      assertThat(created.getSpec().getSchedulerName()).isEqualTo("sharegpu-scheduler");
      assertThat(created.getMetadata().getAnnotations())
          .containsEntry("sharegpu.io/translated-from", c.peer());
    }
    for (Case c : cases) {
      Pod bound =
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofMillis(250))
              .until(
                  () -> client.pods().inNamespace(namespace(c.peer())).withName("app").get(),
                  pod -> pod.getSpec().getNodeName() != null);
      Map<String, String> annotations = bound.getMetadata().getAnnotations();
      assertThat(bound.getSpec().getNodeName()).as(c.peer()).isEqualTo(NODE);
      assertThat(annotations.get("sharegpu.io/assigned-gpus.main")).as(c.peer()).isIn(UUIDS);
      assertThat(annotations)
          .as(c.peer())
          .containsEntry("sharegpu.io/mps-active-thread-percentage.main", c.percentage())
          .containsEntry("sharegpu.io/mps-pinned-mem-limit.main", "0=" + c.memoryMib() + "M");
    }
  }

  @Test
  void aPodMixingTwoPeersIsDenied() {
    Pod mixed =
        pod("hami", Map.of("nvidia.com/gpu", "1", "aliyun.com/gpu-mem", "2"), Map.of(), Map.of());
    mixed.getMetadata().setName("mixed");
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
        .untilAsserted(
            () ->
                assertThatThrownBy(
                        () -> client.pods().inNamespace(namespace("hami")).resource(mixed).create())
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining(
                        "admission webhook \"hami.translate.sharegpu.io\" denied the request:"
                            + " the pod mixes the spellings of hami [main/nvidia.com/gpu] and"
                            + " gpushare [main/aliyun.com/gpu-mem]"));
  }

  private static String namespace(String peer) {
    return "peers-" + peer + "-" + SUFFIX;
  }

  private static MutatingWebhook entry(String name, String url, String caBundle, String peer) {
    MutatingWebhookBuilder builder =
        new MutatingWebhookBuilder()
            .withName(name)
            .withAdmissionReviewVersions("v1")
            .withSideEffects("None")
            .withFailurePolicy("Fail")
            .withReinvocationPolicy("IfNeeded")
            .withTimeoutSeconds(10)
            .withNewClientConfig()
            .withUrl(url)
            .withCaBundle(caBundle)
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
            .endRule();
    if (peer != null) {
      builder
          .editNamespaceSelector()
          .addNewMatchExpression()
          .withKey(TRANSLATE_LABEL)
          .withOperator("In")
          .withValues(peer)
          .endMatchExpression()
          .endNamespaceSelector();
    }
    return builder.build();
  }

  private static Pod pod(
      String peer,
      Map<String, String> resources,
      Map<String, String> annotations,
      Map<String, String> labels) {
    Map<String, Quantity> limits = new LinkedHashMap<>();
    limits.put("cpu", new Quantity("100m"));
    resources.forEach((k, v) -> limits.put(k, new Quantity(v)));
    return new PodBuilder()
        .withNewMetadata()
        .withName("app")
        .withNamespace(namespace(peer))
        .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
        .withLabels(labels.isEmpty() ? null : new LinkedHashMap<>(labels))
        .endMetadata()
        .withNewSpec()
        .addToContainers(
            new ContainerBuilder()
                .withName("main")
                .withImage("cuda")
                .withNewResources()
                .withLimits(limits)
                .endResources()
                .build())
        .endSpec()
        .build();
  }

  /** Creates the pod, retrying until kube-apiserver's informer has the webhook configuration. */
  private static Pod createWhenRouted(Pod pod) {
    return TestPods.createUntilMutated(
        client,
        pod,
        created ->
            created.getMetadata().getAnnotations() != null
                && created
                    .getMetadata()
                    .getAnnotations()
                    .containsKey("sharegpu.io/translated-from"));
  }
}
