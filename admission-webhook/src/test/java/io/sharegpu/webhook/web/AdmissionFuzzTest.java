package io.sharegpu.webhook.web;

import static io.sharegpu.testcluster.fuzz.Json.arr;
import static io.sharegpu.testcluster.fuzz.Json.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.testcluster.fuzz.FuzzRun;
import io.sharegpu.testcluster.fuzz.FuzzRun.Finding;
import io.sharegpu.testcluster.fuzz.HostileJson;
import io.sharegpu.webhook.WebhookTestConfiguration;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fuzzes {@code POST /mutate-pods} through the Spring MVC slice with hostile AdmissionReviews.
 * Invariants: no 5xx, no internal names in any answer, and every 200 answer is an AdmissionReview
 * response for the request's uid (the admission contract) while every 4xx carries a Status-shaped
 * message. 10,000 inputs by default; {@code -Dfuzz.tries} and {@code -Dfuzz.seed} as in {@link
 * FuzzRun}.
 */
@WebMvcTest(AdmissionController.class)
@Import({WebhookTestConfiguration.class, AdmissionMetrics.class, AdmissionFuzzTest.Metrics.class})
class AdmissionFuzzTest {

  @TestConfiguration
  static class Metrics {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Autowired MockMvc mvc;
  @Autowired JsonMapper mapper;

  private int answered;

  static Object review(HostileJson gen) {
    Object pod =
        obj(
            "apiVersion",
            "v1",
            "kind",
            "Pod",
            "metadata",
            obj(
                "name",
                "nb",
                "namespace",
                "jhub",
                "annotations",
                obj("sharegpu.io/gpu-limit-milli", "500", "sharegpu.io/gpu-models", "H100")),
            "spec",
            obj(
                "schedulerName",
                gen.pick("sharegpu-scheduler", "default-scheduler"),
                "containers",
                arr(
                    obj(
                        "name",
                        "notebook",
                        "image",
                        "busybox",
                        "env",
                        arr(obj("name", "A", "value", "b")),
                        "resources",
                        obj(
                            "limits",
                            obj("sharegpu.io/gpu-milli", "250", "sharegpu.io/gpu-memory", "10240"),
                            "requests",
                            obj("memory", "1G")))),
                "initContainers",
                arr(obj("name", "init", "image", "busybox"))));
    return obj(
        "apiVersion",
        "admission.k8s.io/v1",
        "kind",
        "AdmissionReview",
        "request",
        obj(
            "uid",
            "6a1a6f4e-8f0a-4c7e-9d3b-2f1c0e9a7b11",
            "kind",
            obj("group", "", "version", "v1", "kind", "Pod"),
            "resource",
            obj("group", "", "version", "v1", "resource", "pods"),
            "name",
            "nb",
            "namespace",
            "jhub",
            "operation",
            gen.nextInt(10) == 0 ? "UPDATE" : "CREATE",
            "userInfo",
            obj("username", "alice"),
            "object",
            pod,
            "dryRun",
            false));
  }

  @Test
  void mutatePodsNeverAnswers5xxNorLeaksAndKeepsTheAdmissionContract() {
    FuzzRun.Report report =
        FuzzRun.run(
            "webhook /mutate-pods",
            10_000,
            gen -> {
              byte[] body = gen.next(review(gen));
              MockHttpServletRequestBuilder request = post("/mutate-pods").content(body);
              String type = gen.contentType();
              if (type != null) {
                request.header("Content-Type", type);
              }
              MockHttpServletResponse r;
              try {
                r = mvc.perform(request).andReturn().getResponse();
              } catch (Exception e) {
                return new Finding(
                    "5xx: unhandled " + rootCause(e), HostileJson.preview(body, 300));
              }
              return check(r, body);
            });
    report.assertClean();
    assertThat(answered).as("reviews answered 200").isGreaterThan(report.tries() / 100);
  }

  private static String rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String where = "";
    for (StackTraceElement s : t.getStackTrace()) {
      if (s.getClassName().startsWith("io.sharegpu")) {
        where = " at " + s.getClassName() + "." + s.getMethodName() + ":" + s.getLineNumber();
        break;
      }
    }
    return t.getClass().getName() + where;
  }

  private @Nullable Finding check(MockHttpServletResponse r, byte[] body) throws Exception {
    String answer = r.getContentAsString(StandardCharsets.UTF_8);
    if (r.getErrorMessage() != null) {
      answer = answer + r.getErrorMessage();
    }
    int status = r.getStatus();
    if (status >= 500) {
      return new Finding("5xx: " + status, HostileJson.preview(body, 300) + " -> " + answer);
    }
    String leaked = HostileJson.leakedInternal(answer, body);
    if (leaked != null) {
      String head = answer.length() > 80 ? answer.substring(0, 80) : answer;
      return new Finding(
          "leak '" + leaked + "' (" + status + "): " + head.replaceAll("[0-9]+", "N"),
          HostileJson.preview(body, 200) + " -> " + answer);
    }
    JsonNode json;
    try {
      json = mapper.readTree(answer);
    } catch (RuntimeException e) {
      return new Finding("answer is not JSON (" + status + ")", answer);
    }
    if (status == 200) {
      answered++;
      JsonNode uid = mapper.readTree(body).path("request").path("uid");
      JsonNode response = json.path("response");
      if (!response.path("uid").asString("").equals(uid.asString("?"))
          || !response.path("allowed").isBoolean()) {
        return new Finding("200 that is not an answer to the review", answer);
      }
      if (!response.path("allowed").asBoolean()
          && response.path("status").path("message").asString("").isEmpty()) {
        return new Finding("denial without a message", answer);
      }
    } else if (json.path("message").asString("").isEmpty() || json.path("code").asInt() != status) {
      return new Finding("rejection without a Status message (" + status + ")", answer);
    }
    return null;
  }
}
