package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Smoke test of the real control plane: kube-apiserver v1.34.2 answers, and kube-scheduler with the
 * sharegpu-scheduler profile calls an extender (a tiny in-test HTTP server) that filters and binds.
 */
class TestClusterE2E {

  private static final String NODE = "tc-e2e-node-1";
  private static final String NAMESPACE = "tc-e2e-" + Long.toString(System.nanoTime(), 36);

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static HttpServer extender;
  private static final List<String> filterCalls = new CopyOnWriteArrayList<>();
  private static final List<String> bindCalls = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startClusterAndExtender() throws IOException {
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.createNamespace(NAMESPACE);
    createReadyNode(NODE);
    extender = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    extender.createContext("/filter", TestClusterE2E::filter);
    extender.createContext("/prioritize", TestClusterE2E::prioritize);
    extender.createContext("/bind", TestClusterE2E::bind);
    extender.start();
    cluster.startScheduler("http://127.0.0.1:" + extender.getAddress().getPort());
  }

  @AfterAll
  static void stopSchedulerAndExtender() {
    if (cluster != null) {
      cluster.stopScheduler();
    }
    if (extender != null) {
      extender.stop(0);
    }
  }

  @Test
  void apiServerReportsThePinnedKubernetesVersion() {
    assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.2");
    assertThat(cluster.apiServerUrl()).startsWith("https://127.0.0.1:");
    assertThat(cluster.kubeconfig()).exists();
  }

  @Test
  void schedulerBindsAGpuPodThroughTheExtender() {
    Pod pod = client.pods().inNamespace(NAMESPACE).resource(gpuPod("share-250", "250")).create();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(podNode("share-250"))
                    .as("spec.nodeName of %s/share-250", NAMESPACE)
                    .isEqualTo(NODE));
    assertThat(filterCalls).contains(NAMESPACE + "/share-250 -> [" + NODE + "]");
    assertThat(bindCalls)
        .contains(NAMESPACE + "/share-250 uid " + pod.getMetadata().getUid() + " -> " + NODE);
  }

  @Test
  void schedulerKeepsAPodPendingWhenTheNodeLacksGpuMilli() {
    client.pods().inNamespace(NAMESPACE).resource(gpuPod("share-2000", "2000")).create();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Pod pod = client.pods().inNamespace(NAMESPACE).withName("share-2000").get();
              assertThat(pod.getStatus().getConditions())
                  .anySatisfy(
                      c -> {
                        assertThat(c.getType()).isEqualTo("PodScheduled");
                        assertThat(c.getStatus()).isEqualTo("False");
                        assertThat(c.getMessage()).contains("sharegpu.io/gpu-milli");
                      });
            });
    assertThat(podNode("share-2000")).isNull();
  }

  @Test
  void appliesCrdsAndServesTheirResources() {
    cluster.applyCrds(Path.of("src/test/resources/crds").toAbsolutePath());
    cluster.applyCrds(Path.of("src/test/resources/crds").toAbsolutePath()); // idempotent

    ResourceDefinitionContext widgets =
        new ResourceDefinitionContext.Builder()
            .withGroup("testcluster.sharegpu.io")
            .withVersion("v1")
            .withPlural("widgets")
            .withNamespaced(true)
            .build();
    GenericKubernetesResource widget =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("testcluster.sharegpu.io/v1")
            .withKind("Widget")
            .withNewMetadata()
            .withName("w1")
            .withNamespace(NAMESPACE)
            .endMetadata()
            .withAdditionalProperties(Map.of("spec", Map.of("size", 3)))
            .build();
    client.genericKubernetesResources(widgets).inNamespace(NAMESPACE).resource(widget).create();

    GenericKubernetesResource read =
        client.genericKubernetesResources(widgets).inNamespace(NAMESPACE).withName("w1").get();
    assertThat(read.<Integer>get("spec", "size")).isEqualTo(3);
  }

  private static Pod gpuPod(String name, String gpuMilli) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("sharegpu-scheduler")
        .addNewContainer()
        .withName("main")
        .withImage("registry.k8s.io/pause:3.10")
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToRequests("memory", new Quantity("64Mi"))
        .addToLimits("sharegpu.io/gpu-milli", new Quantity(gpuMilli))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static String podNode(String name) {
    return client.pods().inNamespace(NAMESPACE).withName(name).get().getSpec().getNodeName();
  }

  private static void createReadyNode(String name) {
    SimulatedNodes.createReadyNode(client, name, SimulatedNodes.capacity("8", "32Gi", 1000, 81920));
    assertThat(client.nodes().withName(name).get().getStatus().getAllocatable())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("1000"));
  }

  // ------------------------------------------------------------------ the in-test extender

  @SuppressWarnings("unchecked")
  private static void filter(HttpExchange exchange) throws IOException {
    Map<String, Object> args = read(exchange);
    List<String> names = (List<String>) args.get("NodeNames");
    filterCalls.add(podKey((Map<String, Object>) args.get("Pod")) + " -> " + names);
    respond(exchange, Map.of("NodeNames", names, "FailedNodes", Map.of(), "Error", ""));
  }

  @SuppressWarnings("unchecked")
  private static void prioritize(HttpExchange exchange) throws IOException {
    Map<String, Object> args = read(exchange);
    List<String> names = (List<String>) args.get("NodeNames");
    respond(
        exchange,
        names.stream().map(n -> Map.of("Host", n, "Score", 5)).collect(Collectors.toList()));
  }

  private static void bind(HttpExchange exchange) throws IOException {
    Map<String, Object> args = read(exchange);
    String namespace = (String) args.get("PodNamespace");
    String name = (String) args.get("PodName");
    String uid = (String) args.get("PodUID");
    String node = (String) args.get("Node");
    Binding binding =
        new BindingBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .withUid(uid)
            .endMetadata()
            .withNewTarget()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(node)
            .endTarget()
            .build();
    String error = "";
    try {
      client.bindings().inNamespace(namespace).resource(binding).create();
      bindCalls.add(namespace + "/" + name + " uid " + uid + " -> " + node);
    } catch (RuntimeException e) {
      error = "binding " + namespace + "/" + name + " failed: " + e.getMessage();
    }
    respond(exchange, Map.of("Error", error));
  }

  @SuppressWarnings("unchecked")
  private static String podKey(Map<String, Object> pod) {
    Map<String, Object> metadata = (Map<String, Object>) pod.get("metadata");
    return metadata.get("namespace") + "/" + metadata.get("name");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> read(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    return Objects.requireNonNull(client.getKubernetesSerialization().unmarshal(body, Map.class));
  }

  private static void respond(HttpExchange exchange, Object value) throws IOException {
    byte[] json =
        client.getKubernetesSerialization().asJson(value).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, json.length);
    exchange.getResponseBody().write(json);
    exchange.close();
  }
}
