package io.sharegpu.webhook.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.testcluster.fuzz.HostileJson;
import io.sharegpu.webhook.WebhookTestConfiguration;
import io.sharegpu.webhook.admission.PodAdmissionPolicy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One case per kind of AdmissionReview that used to answer 500 or name Java and fabric8 types
 * (found by {@link AdmissionFuzzTest} on the code before the fix).
 */
@WebMvcTest(AdmissionController.class)
@Import({
  WebhookTestConfiguration.class,
  AdmissionMetrics.class,
  HostileReviewRegressionTest.Metrics.class
})
class HostileReviewRegressionTest {

  @TestConfiguration
  static class Metrics {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Autowired MockMvc mvc;
  @Autowired JsonMapper mapper;
  @Autowired PodAdmissionPolicy policy;
  @Autowired AdmissionMetrics metrics;

  private static String review(String object) {
    return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":"
        + "{\"uid\":\"u1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
        + "\"namespace\":\"ns\",\"operation\":\"CREATE\",\"object\":"
        + object
        + "}}";
  }

  private MockHttpServletResponse send(MockHttpServletRequestBuilder request) throws Exception {
    return mvc.perform(request).andReturn().getResponse();
  }

  /** Asserts a 200 AdmissionReview denial with code 400 and a generic message; returns it. */
  private String denied(String object) throws Exception {
    String body = review(object);
    MockHttpServletResponse r =
        send(post("/mutate-pods").contentType("application/json").content(body));
    assertThat(r.getStatus()).isEqualTo(200);
    JsonNode response = mapper.readTree(r.getContentAsString()).path("response");
    assertThat(response.path("uid").asString()).isEqualTo("u1");
    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("code").asInt()).isEqualTo(400);
    String message = response.path("status").path("message").asString();
    assertThat(HostileJson.leakedInternal(message, body.getBytes(StandardCharsets.UTF_8)))
        .as(message)
        .isNull();
    return message;
  }

  private static void assertStatus(MockHttpServletResponse r, int code) throws Exception {
    String answer = r.getContentAsString(StandardCharsets.UTF_8);
    assertThat(r.getStatus()).as(answer).isEqualTo(code);
    assertThat(answer).startsWith("{\"kind\":\"Status\"").contains("\"code\":" + code);
    assertThat(HostileJson.leakedInternal(answer, new byte[0])).as(answer).isNull();
  }

  @Test
  void nullContainerIsDenied() throws Exception {
    assertThat(denied("{\"spec\":{\"containers\":[null]}}")).endsWith("spec.containers[0] is null");
    denied("{\"spec\":{\"initContainers\":[null],\"containers\":[]}}");
  }

  @Test
  void nullEnvEntryIsDenied() throws Exception {
    denied("{\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[null]}]}}");
  }

  @Test
  void resourceWithoutQuantityIsDenied() throws Exception {
    denied(
        "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":"
            + "{\"sharegpu.io/gpu-milli\":null}}}]}}");
  }

  @Test
  void wrongTypedContainersAreDeniedWithoutTypeNames() throws Exception {
    assertThat(denied("{\"spec\":{\"containers\":\"not-a-list\"}}"))
        .isEqualTo("sharegpu webhook cannot read the pod: wrong type or value at spec.containers");
  }

  @Test
  void nullObjectIsNotAPodToCheck() throws Exception {
    MockHttpServletResponse r =
        send(post("/mutate-pods").contentType("application/json").content(review("null")));
    assertThat(r.getStatus()).isEqualTo(200);
    assertThat(mapper.readTree(r.getContentAsString()).path("response").path("uid").asString())
        .isEqualTo("u1");
  }

  @Test
  void malformedReviewsAre400WithAStatus() throws Exception {
    for (String body :
        List.of(
            "{\"request\":",
            "[]",
            "{\"request\":{\"uid\":{\"a\":1}}}",
            "{\"request\":{\"uid\":\"a b\"}}",
            "{\"request\":{\"uid\":1e-100}}",
            "[".repeat(5000))) {
      assertStatus(send(post("/mutate-pods").contentType("application/json").content(body)), 400);
    }
    byte[] latin1 = review("{}").replace("ns", "n\u00e9").getBytes(StandardCharsets.ISO_8859_1);
    assertStatus(send(post("/mutate-pods").contentType("application/json").content(latin1)), 400);
  }

  @Test
  void contentTypesOtherThanJsonAre415WithAStatus() throws Exception {
    for (String type : List.of("a/b;;;==", "text/plain", "application/json; charset=utf-16")) {
      assertStatus(
          send(post("/mutate-pods").header("Content-Type", type).content(review("{}"))), 415);
    }
  }

  @Test
  void bodiesOverTheLimitAre413WithAStatus() throws Exception {
    MockMvc limited =
        MockMvcBuilders.standaloneSetup(new AdmissionController(policy, mapper, metrics))
            .addFilters(new RequestBodyLimitFilter(64 * 1024))
            .build();
    String body = review("{\"metadata\":{\"name\":\"" + "x".repeat(70_000) + "\"}}");
    assertStatus(
        limited
            .perform(post("/mutate-pods").contentType("application/json").content(body))
            .andReturn()
            .getResponse(),
        413);
  }
}
