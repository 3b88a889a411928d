package io.sharegpu.controller;

import static io.sharegpu.controller.model.SharePods.aSharePod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sharegpu.api.sharepod.SharePod;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole application against fabric8's CRUD mock API server: configuration binding, the
 * controller lifecycle, readiness and the Prometheus endpoint. The context is closed with the
 * class: left running after the mock server stops, its leader would lose the Lease and exit the
 * test JVM, as a replica that loses the Lease does.
 */
@EnableKubernetesMockClient(crud = true)
@DirtiesContext
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"sharegpu.controller.namespaces=apps, ,apps", "sharegpu.controller.workers=1"})
class SharePodControllerApplicationIT {

  static KubernetesClient client;
  static KubernetesMockServer server;

  @LocalServerPort int port;
  @Autowired ControllerProperties properties;

  /** Points the application's fabric8 client (built from defaults) at the mock server. */
  @DynamicPropertySource
  static void kubernetes(DynamicPropertyRegistry registry) throws IOException {
    System.setProperty("kubernetes.master", client.getConfiguration().getMasterUrl());
    System.setProperty("kubernetes.trust.certificates", "true");
    System.setProperty("kubernetes.auth.tryKubeConfig", "false");
    System.setProperty("kubernetes.auth.tryServiceAccount", "false");
    try (Stream<Path> files = Files.list(Path.of("..", "charts", "sharegpu", "crds"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yml")).toList()) {
        try (InputStream in = Files.newInputStream(file)) {
          client.apiextensions().v1().customResourceDefinitions().load(in).create();
        }
      }
    }
  }

  @Test
  void bindsTheConfigurationWithDefaults() {
    assertThat(properties.schedulerName()).isEqualTo("sharegpu-scheduler");
    assertThat(properties.namespaces()).containsExactly("apps");
    assertThat(properties.mpsPipeDirectory()).isEqualTo("/tmp/nvidia-mps");
    assertThat(properties.workers()).isEqualTo(1);
    assertThat(properties.leaderElection().enabled()).isTrue();
    assertThat(properties.leaderElection().leaseName()).isEqualTo("sharegpu-controller");
    assertThat(properties.leaderElection().leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(properties.leaderElection().renewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(properties.leaderElection().retryPeriod()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void becomesReadyReconcilesAndExposesMetrics() throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);

    SharePod sp = aSharePod("app-notebook", "0.5");
    sp.getMetadata().setNamespace("apps");
    sp.getMetadata().setUid(null);
    client.resources(SharePod.class).inNamespace("apps").resource(sp).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> client.pods().inNamespace("apps").withName("app-notebook").get() != null);

    HttpResponse<String> metrics = get("/actuator/prometheus");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body())
        .contains("sharegpu_controller_pod_creations_total")
        .contains("sharegpu_controller_queue_depth")
        .containsPattern("(?m)^sharegpu_controller_leader\\{[^}]*\\} 1\\.0$");
    assertThat(get("/actuator/health/liveness").statusCode()).isEqualTo(200);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
