package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestEvents;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

/**
 * Per-GPU cordon behind the real kube-scheduler: an operator writes {@code spec.cordonedGpus} on a
 * GPUNode of two GPUs; a share goes to the other GPU; with both cordoned a pod waits and its
 * FailedScheduling Event gives the operator's reason; uncordoned, it is scheduled within seconds.
 * Then {@code kubectl get gpunodes}' columns, read as the API server's Table.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GpuCordonE2E {

  private static final String NS = "cordon-e2e";
  private static final String NODE = "e2e-cordon";
  private static final String MODEL = "NVIDIA H100 80GB HBM3 cordon-e2e";
  private static final String GPU0 = "GPU-e2e-cordon-0";
  private static final String GPU1 = "GPU-e2e-cordon-1";
  private static final String XID = "Xid 79, card to be replaced";
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
    TestNodes.gpuNode(NODE).gpus(2, MODEL, 81559).create(client);
    port = Ports.free();
    managementPort = Ports.free();
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    extender =
        TestApps.startAndAwaitReady(
            TestApps.extender(cluster, port, managementPort)
                .name("extender-cordon")
                .args("--sharegpu.extender.policy=binpack"),
            managementPort);
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
      client.nodes().withName(NODE).delete();
      client.resources(GPUNode.class).withName(NODE).delete();
    }
  }

  @Test
  @Order(1)
  void aShareLandsOnTheGpuThatIsNotCordoned() {
    cordon(Map.of(GPU0, XID));
    awaitExtenderSees(GPU0, true);

    createPod("a");
    awaitBound("a");

    assertThat(pod("a").getMetadata().getAnnotations())
        .containsEntry(ShareGpuAnnotations.ASSIGNED_GPUS, GPU1);
  }

  @Test
  @Order(2)
  void withEveryGpuCordonedThePodWaitsAndTheEventGivesTheReason() {
    cordon(Map.of(GPU0, XID, GPU1, "fan failure"));
    awaitExtenderSees(GPU1, true);

    createPod("b");

    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<String> messages =
                  TestEvents.failedScheduling(client, NS, "b").stream()
                      .map(Event::getMessage)
                      .toList();
              assertThat(messages)
                  .anySatisfy(
                      m ->
                          assertThat(m)
                              .contains("GPU " + GPU0 + " is cordoned: " + XID)
                              .contains("GPU " + GPU1 + " is cordoned: fan failure"));
            });
    TestEvents.failedScheduling(client, NS, "b").stream()
        .findFirst()
        .ifPresent(ev -> System.out.println("GpuCordonE2E: FailedScheduling: " + ev.getMessage()));
    assertThat(pod("b").getSpec().getNodeName()).isNull();
    // the pod already on the cordoned GPU stays
    assertThat(pod("a").getSpec().getNodeName()).isEqualTo(NODE);
  }

  @Test
  @Order(3)
  void uncordonSchedulesTheWaitingPodWithinSeconds() {
    long start = System.nanoTime();
    client
        .resources(GPUNode.class)
        .withName(NODE)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"cordonedGpus\":null}}");

    // no other event comes: the extender's requeue of waiting pods on a GPUNode change does it
    awaitBound("b", Duration.ofSeconds(20));
    System.out.printf(
        "GpuCordonE2E: uncordon to bound in %d ms%n", (System.nanoTime() - start) / 1_000_000);
  }

  @Test
  @Order(4)
  void printerColumnsShowGpusFreeCordonedAndWideColumns() throws Exception {
    cordon(Map.of(GPU0, XID));
    Set<String> used = new HashSet<>();
    for (String name : List.of("a", "b")) {
      used.add(pod(name).getMetadata().getAnnotations().get(ShareGpuAnnotations.ASSIGNED_GPUS));
    }
    int expectedFree = 2 - used.size();

    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              Map<String, Object> row = tableRow();
              assertThat(row.get("GPUS")).hasToString("2");
              assertThat(row.get("MODEL")).hasToString(MODEL);
              assertThat(row.get("FREE")).hasToString(Integer.toString(expectedFree));
              assertThat(row.get("CORDONED")).hasToString("1");
              assertThat(row.get("HEALTHY")).hasToString("2");
              assertThat(row.get("DRIVER")).hasToString("550.54.15");
              assertThat(row.get("ENFORCEMENT")).hasToString("mps");
              assertThat(row.get("HEARTBEAT").toString()).isNotBlank();
            });
    System.out.println("GpuCordonE2E: Table row " + tableRow());
  }

  // ------------------------------------------------------------------------------------ helpers

  /** The GPUNode as the API server's Table (what kubectl get prints): column name → cell. */
  private static Map<String, Object> tableRow() throws Exception {
    URI uri =
        URI.create(
            client.getMasterUrl().toString().replaceAll("/$", "")
                + "/apis/sharegpu.io/v1alpha1/gpunodes/"
                + NODE);
    HttpRequest request =
        client
            .getHttpClient()
            .newHttpRequestBuilder()
            .uri(uri)
            .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
            .build();
    HttpResponse<String> response = client.getHttpClient().sendAsync(request, String.class).get();
    assertThat(response.code()).as(response.body()).isEqualTo(200);
    JsonNode table = client.getKubernetesSerialization().unmarshal(response.body(), JsonNode.class);
    assertThat(table.get("kind").asText()).isEqualTo("Table");
    JsonNode columns = table.get("columnDefinitions");
    JsonNode cells = table.get("rows").get(0).get("cells");
    Map<String, Object> row = new java.util.LinkedHashMap<>();
    for (int i = 0; i < columns.size(); i++) {
      JsonNode cell = cells.get(i);
      row.put(
          columns.get(i).get("name").asText(), cell == null || cell.isNull() ? "" : cell.asText());
    }
    return row;
  }

  private static void cordon(Map<String, String> reasons) {
    StringBuilder list = new StringBuilder();
    for (Map.Entry<String, String> e : reasons.entrySet()) {
      if (list.length() > 0) {
        list.append(',');
      }
      list.append("{\"uuid\":\"")
          .append(e.getKey())
          .append("\",\"reason\":\"")
          .append(e.getValue())
          .append("\",\"time\":\"2026-12-05T07:00:00Z\"}");
    }
    client
        .resources(GPUNode.class)
        .withName(NODE)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"cordonedGpus\":[" + list + "]}}");
  }

  private static void awaitExtenderSees(String uuid, boolean cordoned) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              HttpResponse<String> r =
                  client
                      .getHttpClient()
                      .sendAsync(
                          client
                              .getHttpClient()
                              .newHttpRequestBuilder()
                              .uri(
                                  URI.create(
                                      "http://127.0.0.1:" + managementPort + "/debug/gpus/" + uuid))
                              .build(),
                          String.class)
                      .get();
              assertThat(r.body()).contains("\"cordoned\":" + cordoned);
            });
  }

  private static void createPod(String name) {
    TestPods.pod(name)
        .namespace(NS)
        .model("cordon-e2e")
        .image("busybox")
        .share(250, 0)
        .gracePeriod(0)
        .create(client);
  }

  private static Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static void awaitBound(String name) {
    awaitBound(name, Duration.ofSeconds(60));
  }

  private static void awaitBound(String name, Duration max) {
    TestPods.awaitBoundTo(client, NS, name, NODE, max);
  }
}
