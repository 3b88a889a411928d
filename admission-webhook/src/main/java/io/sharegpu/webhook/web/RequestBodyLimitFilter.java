package io.sharegpu.webhook.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies larger than a limit with 413 and a Status message, before anything decodes
 * them: by {@code Content-Length} when the caller sends one, else while reading a chunked body (at
 * most limit + 1 bytes are read). Tomcat's own limits cover only headers and form posts.
 */
public final class RequestBodyLimitFilter extends OncePerRequestFilter {

  private final long maxBytes;

  /** Creates the filter; {@code maxBytes} is the largest body accepted. */
  public RequestBodyLimitFilter(long maxBytes) {
    if (maxBytes <= 0 || maxBytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("request body limit out of range: " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String method = request.getMethod();
    if ("GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method)) {
      chain.doFilter(request, response);
      return;
    }
    if (request.getContentLengthLong() > maxBytes) {
      tooLarge(request, response);
      return;
    }
    byte[] body = request.getInputStream().readNBytes((int) maxBytes + 1);
    if (body.length > maxBytes) {
      tooLarge(request, response);
      return;
    }
    chain.doFilter(new Buffered(request, body), response);
  }

  private void tooLarge(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String message = "request body is larger than " + maxBytes + " bytes";
    RejectionLog.rejected(request.getRequestURI(), 413, message);
    response.setStatus(413);
    response.setContentType("application/json");
    response.setHeader("Connection", "close");
    response
        .getOutputStream()
        .write(AdmissionController.status(413, message).getBytes(StandardCharsets.UTF_8));
  }

  /** The request with its body already read. */
  private static final class Buffered extends HttpServletRequestWrapper {
    private final byte[] body;

    Buffered(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() throws IOException {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new UnsupportedOperationException("the body is already read");
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      return new BufferedReader(
          new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }
  }
}
