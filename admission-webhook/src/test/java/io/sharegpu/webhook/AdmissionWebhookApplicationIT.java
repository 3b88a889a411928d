package io.sharegpu.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/** The whole app: admission on the server port, health and metrics on the management port. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"management.server.port=0", "sharegpu.webhook.scheduler-name=gpu-scheduler"})
class AdmissionWebhookApplicationIT {

  @Value("${local.server.port}")
  int port;

  @Value("${local.management.port}")
  int managementPort;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void answersAdmissionReviewAndServesHealthAndMetricsOnTheManagementPort() throws Exception {
    String review;
    try (InputStream in =
        getClass().getResourceAsStream("/golden/default-scheduler-bare.request.json")) {
      review = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    HttpResponse<String> admission =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mutate-pods"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(review))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(admission.statusCode()).isEqualTo(200);
    assertThat(admission.body()).contains("\"allowed\":true", "\"patchType\":\"JSONPatch\"");
    String patch =
        new String(
            java.util.Base64.getDecoder()
                .decode(admission.body().replaceAll(".*\"patch\":\"([^\"]+)\".*", "$1")),
            StandardCharsets.UTF_8);
    assertThat(patch).contains("\"value\":\"gpu-scheduler\"");

    assertThat(get(managementPort, "/actuator/health/readiness")).contains("UP");
    assertThat(get(managementPort, "/actuator/prometheus"))
        .contains("sharegpu_webhook_admissions_total{result=\"patched\"} 1.0");
    assertThat(getStatus(port, "/actuator/health")).isEqualTo(404);
  }

  private String get(int p, String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private int getStatus(int p, String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }
}
