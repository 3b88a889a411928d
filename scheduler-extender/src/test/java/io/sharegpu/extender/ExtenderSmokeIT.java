package io.sharegpu.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sharegpu.extender.ports.ManagementPortConfiguration.ManagementConnector;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The whole extender context against a mock API server: it starts with the verbs on {@code
 * server.port} and debug/actuator on the management port, reports ready once its ledger is rebuilt,
 * and each verb answers kube-scheduler's JSON.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ExtenderSmokeIT {

  static KubernetesMockServer server;
  static KubernetesClient client;

  private static final List<String> PROPERTIES =
      List.of(
          "kubernetes.master",
          "kubernetes.auth.tryKubeConfig",
          "kubernetes.auth.tryServiceAccount",
          "kubernetes.tryNamespacePath",
          "kubernetes.namespace");

  private static ConfigurableApplicationContext ctx;
  private static int verbPort;
  private static int managementPort;
  private static final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() {
    client.resource(Fixtures.node("n1", 2, 81559)).create();
    client.resource(Fixtures.gpuNode("n1", "NVIDIA H100", 2, 81559)).create();
    System.setProperty("kubernetes.master", client.getMasterUrl().toString());
    System.setProperty("kubernetes.auth.tryKubeConfig", "false");
    System.setProperty("kubernetes.auth.tryServiceAccount", "false");
    System.setProperty("kubernetes.tryNamespacePath", "false");
    System.setProperty("kubernetes.namespace", "default");
    ctx =
        new SpringApplicationBuilder(SchedulerExtenderApplication.class)
            .run(
                "--server.port=0",
                "--sharegpu.extender.management-port=0",
                "--sharegpu.extender.policy=binpack",
                "--spring.main.banner-mode=off");
    verbPort = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port", "-1"));
    managementPort = ctx.getBean(ManagementConnector.class).port();
    SchedulingState state = ctx.getBean(SchedulingState.class);
    await().atMost(Duration.ofSeconds(30)).until(state::isReady);
  }

  @AfterAll
  static void stop() {
    if (ctx != null) {
      ctx.close();
    }
    PROPERTIES.forEach(System::clearProperty);
  }

  private static HttpResponse<String> post(int port, String path, String json) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String args(String pod, int milli) {
    return "{\"Pod\":{\"metadata\":{\"name\":\""
        + pod
        + "\",\"namespace\":\"default\",\"uid\":\"uid-"
        + pod
        + "\"},\"spec\":{\"containers\":[{\"name\":\"main\",\"resources\":{\"limits\":"
        + "{\"sharegpu.io/gpu-milli\":\""
        + milli
        + "\"}}}]}},\"NodeNames\":[\"n1\",\"cpu-only\"]}";
  }

  @Test
  void theContextServesTheVerbsAndTheManagementPathsOnTheirOwnPorts() throws Exception {
    assertThat(verbPort).isPositive();
    assertThat(managementPort).isPositive().isNotEqualTo(verbPort);

    HttpResponse<String> ready = get(managementPort, "/actuator/health/readiness");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).contains("\"UP\"");
    HttpResponse<String> nodes = get(managementPort, "/debug/nodes");
    assertThat(nodes.statusCode()).isEqualTo(200);
    assertThat(nodes.body()).contains("\"n1\"");

    // each path answers on its own port only
    assertThat(post(managementPort, "/filter", args("a", 500)).statusCode()).isEqualTo(404);
    assertThat(get(verbPort, "/debug/nodes").statusCode()).isEqualTo(404);
  }

  @Test
  void eachVerbAnswersKubeSchedulersJson() throws Exception {
    HttpResponse<String> filter = post(verbPort, "/filter", args("a", 500));
    assertThat(filter.statusCode()).isEqualTo(200);
    assertThat(filter.body())
        .contains("\"NodeNames\":[\"n1\"]")
        .contains("\"FailedAndUnresolvableNodes\":{\"cpu-only\"");

    HttpResponse<String> prioritize = post(verbPort, "/prioritize", args("b", 500));
    assertThat(prioritize.statusCode()).isEqualTo(200);
    assertThat(prioritize.body()).contains("{\"Host\":\"n1\",\"Score\":10}");

    HttpResponse<String> preempt =
        post(
            verbPort,
            "/preempt",
            "{\"Pod\":{\"metadata\":{\"name\":\"c\",\"namespace\":\"default\",\"uid\":\"uid-c\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"main\"}]}},"
                + "\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":\"v\"}]}}}");
    assertThat(preempt.statusCode()).isEqualTo(200);
    assertThat(preempt.body()).contains("\"NodeNameToMetaVictims\"").contains("\"v\"");

    HttpResponse<String> bind =
        post(
            verbPort,
            "/bind",
            "{\"PodName\":\"gone\",\"PodNamespace\":\"default\","
                + "\"PodUID\":\"0b6b6a4e-1b2c-4d5e-8f90-123456789abc\",\"Node\":\"n1\"}");
    assertThat(bind.statusCode()).isEqualTo(200);
    assertThat(bind.body()).contains("\"Error\":\"pod default/gone does not exist\"");

    HttpResponse<String> malformed = post(verbPort, "/filter", "{not json");
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body()).contains("\"Error\"");
  }

  @Test
  void theVerbsAreServedAheadOfSpringMvcAndTimedByTheirOwnHistogram() throws Exception {
    HttpResponse<String> wrongMethod = get(verbPort, "/filter");
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("POST");
    assertThat(wrongMethod.body()).startsWith("{\"Error\":\"method GET not allowed");

    // Spring MVC's per-request observation times the management paths (this scrape among them),
    // never a verb: five verb calls between two scrapes add one observed request, the first scrape
    double before = observedRequests(get(managementPort, "/actuator/prometheus").body());
    for (int i = 0; i < 5; i++) {
      assertThat(post(verbPort, "/filter", args("d" + i, 250)).statusCode()).isEqualTo(200);
    }
    String metrics = get(managementPort, "/actuator/prometheus").body();
    assertThat(observedRequests(metrics) - before).isEqualTo(1.0);
    assertThat(metrics)
        .contains("sharegpu_extender_request_duration_seconds_count{verb=\"filter\"}");
  }

  /** The sum of every {@code http_server_requests_seconds_count} series. */
  private static double observedRequests(String prometheus) {
    return prometheus
        .lines()
        .filter(l -> l.startsWith("http_server_requests_seconds_count"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
