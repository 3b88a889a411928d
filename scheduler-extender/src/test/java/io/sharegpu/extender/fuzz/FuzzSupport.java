package io.sharegpu.extender.fuzz;

import io.sharegpu.extender.web.RequestBodyLimitFilter;
import io.sharegpu.extender.web.RequestLimitProperties;
import io.sharegpu.testcluster.fuzz.FuzzRun.Finding;
import io.sharegpu.testcluster.fuzz.HostileJson;
import jakarta.servlet.Filter;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.StandaloneMockMvcBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Sends fuzz inputs through MockMvc and checks the answers. */
final class FuzzSupport {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static @Nullable Throwable unhandled;

  private FuzzSupport() {}

  /**
   * Builds MockMvc as the app serves requests: the body limit, then the verbs, then Spring MVC's
   * controllers with their error handling.
   */
  static MockMvc mvc(StandaloneMockMvcBuilder builder, Filter verbs) {
    return builder
        .addFilters(
            new RequestBodyLimitFilter(RequestLimitProperties.DEFAULT_MAX_BODY.toBytes()), verbs)
        .build();
  }

  /** Performs the request; null when an exception escaped Spring MVC (a 500 in a server). */
  static @Nullable MockHttpServletResponse perform(
      MockMvc mvc, MockHttpServletRequestBuilder request) {
    try {
      return mvc.perform(request).andReturn().getResponse();
    } catch (Exception | StackOverflowError e) {
      unhandled = e;
      return null;
    }
  }

  /** The finding for the exception that escaped the last {@link #perform}. */
  static Finding lastUnhandled(byte[] body) {
    Throwable t = unhandled;
    while (t != null && t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String where = "";
    if (t != null) {
      for (StackTraceElement e : t.getStackTrace()) {
        if (e.getClassName().startsWith("io.sharegpu")) {
          where = " at " + e.getClassName() + "." + e.getMethodName() + ":" + e.getLineNumber();
          break;
        }
      }
    }
    String kind = "5xx: unhandled " + (t == null ? "?" : t.getClass().getName()) + where;
    return new Finding(kind, HostileJson.preview(body, 300));
  }

  /**
   * Checks one answer: no 5xx, no internal names, and a rejection (4xx) carries a JSON object with
   * a non-empty {@code Error}.
   */
  static @Nullable Finding checkAnswer(MockHttpServletResponse r, byte[] request, String target)
      throws Exception {
    String answer = r.getContentAsString(StandardCharsets.UTF_8);
    if (r.getErrorMessage() != null) {
      answer = answer + r.getErrorMessage();
    }
    int status = r.getStatus();
    if (status >= 500) {
      return new Finding(
          "5xx: " + status + " " + HostileJson.preview(answer.getBytes(StandardCharsets.UTF_8), 60),
          HostileJson.preview(request, 300));
    }
    String leaked = HostileJson.leakedInternal(answer, request);
    if (leaked != null) {
      String head = answer.length() > 70 ? answer.substring(0, 70) : answer;
      return new Finding(
          "leak '" + leaked + "' (" + status + "): " + head.replaceAll("[0-9]+", "N"),
          HostileJson.preview(request, 200) + " -> " + answer);
    }
    if (status >= 400 && !target.equals("debug")) {
      JsonNode body;
      try {
        body = JSON.readTree(answer);
      } catch (RuntimeException e) {
        body = null;
      }
      if (body == null
          || !body.path("Error").isString()
          || body.path("Error").asString().isEmpty()) {
        return new Finding(
            "rejection without an Error message (" + status + ")",
            HostileJson.preview(request, 200) + " -> " + answer);
      }
    }
    return null;
  }
}
