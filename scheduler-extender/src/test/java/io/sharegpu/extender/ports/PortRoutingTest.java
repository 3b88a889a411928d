package io.sharegpu.extender.ports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

class PortRoutingTest {

  private static final int VERB_PORT = 8443;
  private static final int MANAGEMENT_PORT = 8081;

  static Stream<Arguments> requests() {
    return Stream.of(
        Arguments.of("POST", "/bind", "/bind", VERB_PORT, true),
        Arguments.of("POST", "/filter", "/filter", VERB_PORT, true),
        Arguments.of("POST", "/prioritize", "/prioritize", VERB_PORT, true),
        Arguments.of("POST", "/preempt", "/preempt", VERB_PORT, true),
        Arguments.of("GET", "/debug/allocations", "/debug/allocations", VERB_PORT, false),
        Arguments.of("GET", "/actuator/prometheus", "/actuator/prometheus", VERB_PORT, false),
        Arguments.of("GET", "/ui/", "/ui/", VERB_PORT, false),
        Arguments.of("GET", "/error", "/error", VERB_PORT, false),
        Arguments.of("POST", "/bind/", "/bind/", VERB_PORT, false),
        Arguments.of("POST", "/bind", "/bind", MANAGEMENT_PORT, false),
        Arguments.of("POST", "/filter", "/filter", MANAGEMENT_PORT, false),
        Arguments.of("GET", "/debug/allocations", "/debug/allocations", MANAGEMENT_PORT, true),
        Arguments.of("GET", "/debug", "/debug", MANAGEMENT_PORT, true),
        Arguments.of("GET", "/ui", "/ui", MANAGEMENT_PORT, true),
        Arguments.of("GET", "/ui/ui.js", "/ui/ui.js", MANAGEMENT_PORT, true),
        Arguments.of(
            "GET",
            "/actuator/health/readiness",
            "/actuator/health/readiness",
            MANAGEMENT_PORT,
            true),
        Arguments.of("GET", "/debugger", "/debugger", MANAGEMENT_PORT, false),
        // Tomcat normalises the servlet path; the raw URI must pass as well
        Arguments.of("POST", "/debug/../bind", "/bind", MANAGEMENT_PORT, false),
        Arguments.of("POST", "/%62ind", "/bind", VERB_PORT, false),
        Arguments.of("GET", "/bind/../debug/pods", "/debug/pods", MANAGEMENT_PORT, false));
  }

  @ParameterizedTest(name = "{0} {1} on {3}: passed on = {4}")
  @MethodSource("requests")
  void answersEachPathOnItsOwnPortOnly(
      String method, String rawUri, String servletPath, int port, boolean passedOn)
      throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest(method, rawUri);
    request.setServletPath(servletPath);
    request.setLocalPort(port);
    MockHttpServletResponse response = new MockHttpServletResponse();
    MockFilterChain chain = new MockFilterChain();

    new PortRouting(p -> p == MANAGEMENT_PORT).doFilter(request, response, chain);

    assertThat(chain.getRequest() != null).isEqualTo(passedOn);
    assertThat(response.getStatus()).isEqualTo(passedOn ? 200 : 404);
  }

  @Test
  void refusesOnePortForTheVerbsAndTheManagementPaths() {
    assertThatThrownBy(() -> ManagementPortConfiguration.requireDistinct(8081, 8081))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("8081");
    ManagementPortConfiguration.requireDistinct(8080, 8081);
    ManagementPortConfiguration.requireDistinct(0, 0);
  }
}
