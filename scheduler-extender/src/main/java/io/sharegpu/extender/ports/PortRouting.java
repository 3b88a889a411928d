package io.sharegpu.extender.ports;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.IntPredicate;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers each path on its own port only: the verbs ({@code /filter}, {@code /prioritize}, {@code
 * /preempt}, {@code /bind}) on the verb port, {@code /debug/**}, {@code /ui/**} and {@code
 * /actuator/**} on the management port; anything else, on either port, is a 404 before it reaches a
 * controller. Both the raw request URI and the path Tomcat decoded and normalised must pass, so
 * {@code /debug/../bind} or {@code /%62ind} on the management port is a 404 too.
 *
 * <p>Example: {@code POST /bind} on the management port → 404; {@code GET /debug/allocations} on
 * the verb port → 404; {@code GET /actuator/health} on the management port → passed on.
 */
public final class PortRouting extends OncePerRequestFilter {

  private static final Set<String> VERBS = Set.of("/filter", "/prioritize", "/preempt", "/bind");
  private static final Set<String> MANAGEMENT_ROOTS = Set.of("/debug", "/ui", "/actuator");

  private final IntPredicate isManagementPort;

  /** Routes requests whose local port matches {@code isManagementPort} as management requests. */
  public PortRouting(IntPredicate isManagementPort) {
    this.isManagementPort = isManagementPort;
  }

  /** Whether {@code path} (without the context path) is served on the verb port. */
  static boolean isVerb(String path) {
    return VERBS.contains(path);
  }

  /** Whether {@code path} (without the context path) is served on the management port. */
  static boolean isManagement(String path) {
    for (String root : MANAGEMENT_ROOTS) {
      if (path.equals(root) || path.startsWith(root + "/")) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String raw = request.getRequestURI().substring(request.getContextPath().length());
    String decoded =
        request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
    boolean management = isManagementPort.test(request.getLocalPort());
    boolean allowed =
        management ? isManagement(raw) && isManagement(decoded) : isVerb(raw) && isVerb(decoded);
    if (allowed) {
      chain.doFilter(request, response);
      return;
    }
    response.setStatus(HttpServletResponse.SC_NOT_FOUND);
    response.setContentType("text/plain;charset=UTF-8");
    response
        .getOutputStream()
        .write(
            (management ? "not found on the management port\n" : "not found\n")
                .getBytes(StandardCharsets.UTF_8));
  }
}
