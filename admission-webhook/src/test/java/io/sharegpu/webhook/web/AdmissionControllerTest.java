package io.sharegpu.webhook.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.webhook.WebhookTestConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * HTTP slice: golden AdmissionReview requests in, golden responses out (the base64 patch decoded
 * for comparison).
 */
@WebMvcTest(AdmissionController.class)
@Import({
  WebhookTestConfiguration.class,
  AdmissionMetrics.class,
  AdmissionControllerTest.Metrics.class
})
class AdmissionControllerTest {

  @TestConfiguration
  static class Metrics {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Autowired MockMvc mvc;
  @Autowired JsonMapper mapper;
  @Autowired MeterRegistry registry;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "kubespawner-pod",
        "default-scheduler-bare",
        "already-injected",
        "invalid-milli",
        "visible-devices",
        "no-gpu",
        "update-ignored"
      })
  void answersGoldenAdmissionReview(String name) throws Exception {
    String body =
        mvc.perform(
                post("/mutate-pods")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(golden(name + ".request.json")))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();

    JsonNode answer = mapper.readTree(body);
    JsonNode patch = answer.path("response").path("patch");
    if (patch.isString()) {
      String decoded =
          new String(Base64.getDecoder().decode(patch.asString()), StandardCharsets.UTF_8);
      ((ObjectNode) answer.get("response")).set("patch", mapper.readTree(decoded));
    }
    JSONAssert.assertEquals(
        golden(name + ".response.json"), mapper.writeValueAsString(answer), JSONCompareMode.STRICT);
  }

  @Test
  void countsAdmissionsByResult() throws Exception {
    double before = count("denied");

    mvc.perform(
            post("/mutate-pods")
                .contentType(MediaType.APPLICATION_JSON)
                .content(golden("visible-devices.request.json")))
        .andExpect(status().isOk());

    assertThat(count("denied")).isEqualTo(before + 1);
  }

  @Test
  void rejectsReviewWithoutRequest() throws Exception {
    mvc.perform(
            post("/mutate-pods")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}"))
        .andExpect(status().isBadRequest());
  }

  @Test
  void deniesUnreadablePodWithClearMessage() throws Exception {
    String body =
        mvc.perform(
                post("/mutate-pods")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content(
                        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                            + "\"request\":{\"uid\":\"u1\",\"kind\":{\"group\":\"\",\"version\":\"v1\","
                            + "\"kind\":\"Pod\"},\"operation\":\"CREATE\",\"object\":"
                            + "{\"spec\":{\"containers\":\"not-a-list\"}}}}"))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();

    JsonNode response = mapper.readTree(body).path("response");
    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("message").asString())
        .startsWith("sharegpu webhook cannot read the pod");
  }

  private double count(String result) {
    return registry.get("sharegpu.webhook.admissions").tag("result", result).counter().count();
  }

  private static String golden(String file) throws IOException {
    try (InputStream in = AdmissionControllerTest.class.getResourceAsStream("/golden/" + file)) {
      if (in == null) {
        throw new IOException("missing golden file " + file);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
