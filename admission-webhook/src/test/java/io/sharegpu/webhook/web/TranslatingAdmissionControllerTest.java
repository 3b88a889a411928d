package io.sharegpu.webhook.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.webhook.WebhookTestConfiguration;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code /mutate-pods/translate/{peer}}: the path names the peer whose spelling is translated. */
@WebMvcTest(AdmissionController.class)
@Import({
  WebhookTestConfiguration.class,
  AdmissionMetrics.class,
  TranslatingAdmissionControllerTest.Metrics.class
})
class TranslatingAdmissionControllerTest {

  private static final String HAMI_POD_REVIEW =
      "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
          + "\"uid\":\"u1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
          + "\"operation\":\"CREATE\",\"namespace\":\"team\",\"object\":{\"metadata\":{\"name\":"
          + "\"p\"},\"spec\":{\"schedulerName\":\"default-scheduler\",\"containers\":[{\"name\":"
          + "\"main\",\"image\":\"cuda\",\"resources\":{\"limits\":{\"cpu\":\"1\","
          + "\"nvidia.com/gpu\":\"1\",\"nvidia.com/gpumem\":\"3k\",\"nvidia.com/gpucores\":\"30\"}"
          + "}}]}}}}";

  @TestConfiguration
  static class Metrics {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Autowired MockMvc mvc;
  @Autowired JsonMapper mapper;

  @Test
  void theTranslatePathTranslatesThePeerItNames() throws Exception {
    JsonNode response = review("/mutate-pods/translate/hami");

    assertThat(response.path("allowed").asBoolean()).isTrue();
    JsonNode patch =
        mapper.readTree(
            new String(
                Base64.getDecoder().decode(response.path("patch").asString()),
                StandardCharsets.UTF_8));
    JsonNode resources = patch.get(0);
    assertThat(resources.path("path").asString()).isEqualTo("/spec/containers/0/resources");
    assertThat(resources.path("value").path("limits").toString())
        .isEqualTo(
            "{\"cpu\":\"1\",\"sharegpu.io/gpu-memory\":\"3000\",\"sharegpu.io/gpu-milli\":\"300\"}");
    assertThat(resources.path("value").path("requests").toString())
        .isEqualTo("{\"sharegpu.io/gpu-memory\":\"3000\",\"sharegpu.io/gpu-milli\":\"300\"}");
    assertThat(patch.get(1).path("value").path("sharegpu.io/translated-from").asString())
        .isEqualTo("hami");
  }

  @Test
  void thePlainPathLeavesPeerPodsAlone() throws Exception {
    JsonNode response = review("/mutate-pods");

    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.has("patch")).isFalse();
  }

  @Test
  void anotherPeersPathLeavesThePodAlone() throws Exception {
    assertThat(review("/mutate-pods/translate/gpushare").has("patch")).isFalse();
  }

  @Test
  void anUnknownPeerIsNotFound() throws Exception {
    mvc.perform(
            post("/mutate-pods/translate/volcano")
                .contentType(MediaType.APPLICATION_JSON)
                .content(HAMI_POD_REVIEW))
        .andExpect(status().isNotFound());
  }

  private JsonNode review(String path) throws Exception {
    String body =
        mvc.perform(post(path).contentType(MediaType.APPLICATION_JSON).content(HAMI_POD_REVIEW))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse()
            .getContentAsString();
    return mapper.readTree(body).path("response");
  }
}
