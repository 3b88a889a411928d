package io.sharegpu.extender.ui;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Headers for the page under {@code /ui}: a Content-Security-Policy that allows only this origin's
 * files (no inline script or style, no frames, no forms), no MIME sniffing, no referrer.
 */
@Component
class UiSecurityHeaders extends OncePerRequestFilter {

  /** The page's policy. */
  static final String POLICY =
      "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none';"
          + " object-src 'none'";

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    return !(path.equals("/ui") || path.startsWith("/ui/"));
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    response.setHeader("Content-Security-Policy", POLICY);
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("Referrer-Policy", "no-referrer");
    chain.doFilter(request, response);
  }
}
