package io.sharegpu.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.testcluster.fuzz.HostileJson;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The running server (Tomcat, the configured limits, Spring Boot's error handling) against hostile
 * requests: oversized bodies and headers, malformed reviews, wrong methods and paths. Every answer
 * is a 4xx without internal names.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"management.server.port=0"})
class HostileRequestsIT {

  @Value("${local.server.port}")
  int port;

  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder post(String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mutate-pods"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private static void assertRejected(HttpResponse<String> r, int status) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(HostileJson.leakedInternal(r.body(), new byte[0])).as(r.body()).isNull();
    assertThat(r.body()).doesNotContain("Tomcat", "Whitelabel", "trace");
  }

  @Test
  void bodiesOverTheLimitAre413WithAStatus() throws Exception {
    String big = "{\"request\":{\"uid\":\"u\",\"x\":\"" + "a".repeat(7 * 1024 * 1024) + "\"}}";
    HttpResponse<String> r = send(post(big));
    assertRejected(r, 413);
    assertThat(r.body()).contains("\"kind\":\"Status\"", "\"code\":413");
    // chunked: no Content-Length, the limit applies while reading
    byte[] bytes = big.getBytes(StandardCharsets.UTF_8);
    r =
        send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mutate-pods"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(bytes))));
    assertRejected(r, 413);
  }

  @Test
  void headersOverTheLimitAre400() throws Exception {
    assertRejected(send(post("{}").header("X-Big", "h".repeat(20_000))), 400);
  }

  @Test
  void malformedReviewsWrongMethodsAndPathsAre4xxWithoutInternals() throws Exception {
    assertRejected(send(post("{\"request\":{\"uid\":[1,")), 400);
    assertRejected(send(post("{\"request\":{\"uid\":\"u\",\"kind\":5}}")), 400);
    assertRejected(
        send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mutate-pods"))
                .header("Content-Type", "text/plain;;;")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))),
        415);
    assertRejected(
        send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mutate-pods"))), 405);
    assertRejected(
        send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/%2e%2e/etc"))), 400);
    assertRejected(
        send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/nope"))), 404);
  }
}
