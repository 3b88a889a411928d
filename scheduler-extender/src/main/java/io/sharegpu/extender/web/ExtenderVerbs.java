package io.sharegpu.extender.web;

import io.sharegpu.extender.bind.BindForwarder;
import io.sharegpu.extender.bind.BindLeadership;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * kube-scheduler's extender verbs ({@code POST /filter}, {@code /prioritize}, {@code /preempt},
 * {@code /bind}), served by a servlet filter ahead of Spring MVC: a verb is on the critical path of
 * every GPU pod in the cluster, so its request goes from Tomcat to the decision and back without
 * the dispatcher's handler lookup, argument resolution, locale and session handling, message
 * conversion, request events and per-request observation (each verb has its own latency histogram,
 * {@link ExtenderMetrics#latency}). Every other path passes on to Spring MVC.
 *
 * <p>Bodies are read and written with {@link WireCodec}: filter and prioritize with its streaming
 * reader and writer (only the Pod fields the extender uses), everything else with fabric8's Jackson
 * so embedded Pods and Nodes decode exactly as Kubernetes writes them. A body that is not what
 * kube-scheduler sends (not JSON, not UTF-8, wrong types, null or over-long fields, not {@code
 * application/json}) is answered with a 4xx status and {@code {"Error": "..."}}, a generic message
 * that names the place in the request but no internal type (kube-scheduler treats any status but
 * 200 as a failed call); a method other than POST is a 405. A well-formed request the extender
 * cannot serve is answered 200 with {@code Error} set, as the protocol has it. With bind leader
 * election, a replica that is not the bind leader forwards {@code /bind} unchanged to the leader
 * and returns its answer; filter and prioritize are answered by every replica.
 */
public final class ExtenderVerbs extends HttpFilter {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ExtenderVerbs.class);
  private static final String JSON = "application/json";

  private final transient ExtenderHandler handler;
  private final transient WireCodec codec;
  private final transient ExtenderMetrics metrics;
  private final transient BindLeadership leadership;
  private final transient BindForwarder forwarder;

  /** Creates the verbs for a single replica (it always binds). */
  public ExtenderVerbs(ExtenderHandler handler, WireCodec codec, ExtenderMetrics metrics) {
    this(
        handler,
        codec,
        metrics,
        BindLeadership.single(metrics),
        new BindForwarder(Duration.ofSeconds(2), Duration.ofSeconds(10)));
  }

  /** Creates the verbs; binds go to this replica only while it is the bind leader. */
  public ExtenderVerbs(
      ExtenderHandler handler,
      WireCodec codec,
      ExtenderMetrics metrics,
      BindLeadership leadership,
      BindForwarder forwarder) {
    this.handler = handler;
    this.codec = codec;
    this.metrics = metrics;
    this.leadership = leadership;
    this.forwarder = forwarder;
  }

  /** The verb a request path names ({@code "filter"}, ...), or null for any other path. */
  static @Nullable String verbOf(String path) {
    return switch (path) {
      case "/filter" -> "filter";
      case "/prioritize" -> "prioritize";
      case "/preempt" -> "preempt";
      case "/bind" -> "bind";
      default -> null;
    };
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String verb = verbOf(request.getRequestURI().substring(request.getContextPath().length()));
    if (verb == null) {
      chain.doFilter(request, response);
      return;
    }
    int status = HttpServletResponse.SC_OK;
    String answer;
    try {
      if (!"POST".equals(request.getMethod())) {
        response.setHeader("Allow", "POST");
        status = HttpServletResponse.SC_METHOD_NOT_ALLOWED;
        answer =
            reject(
                request,
                status,
                "method " + printable(request.getMethod()) + " not allowed; use POST");
      } else {
        requireJson(request.getContentType());
        byte[] body = request.getInputStream().readAllBytes();
        answer = serve(verb, body, request.getHeader(BindForwarder.FORWARDED_HEADER));
      }
    } catch (MalformedRequestException e) {
      status = HttpServletResponse.SC_BAD_REQUEST;
      answer = reject(request, status, e.getMessage());
    } catch (UnsupportedType e) {
      status = HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE;
      answer = reject(request, status, "Content-Type must be application/json");
    } catch (IOException e) {
      status = HttpServletResponse.SC_BAD_REQUEST;
      answer = reject(request, status, "cannot read the request body");
    } catch (RuntimeException | StackOverflowError e) {
      // a fault of the extender, not of the request: logged once with its stack, a generic answer
      LOG.error("failed to answer {}", request.getRequestURI(), e);
      status = HttpServletResponse.SC_INTERNAL_SERVER_ERROR;
      answer = error("internal error; see the extender's log");
    }
    byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType(JSON);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  /** Answers one verb's body (200). */
  private String serve(String verb, byte[] body, @Nullable String forwardedBy) {
    return switch (verb) {
      case "filter" ->
          timed(
              "filter", () -> codec.writeFilterResult(handler.filter(codec.readCheckedArgs(body))));
      case "prioritize" ->
          timed(
              "prioritize",
              () -> codec.writePriorities(handler.prioritize(codec.readCheckedArgs(body))));
      case "preempt" ->
          timed("preempt", () -> codec.write(handler.preempt(codec.readPreemptionArgs(body))));
      default -> bind(body, forwardedBy);
    };
  }

  /**
   * {@code POST /bind}: ExtenderBindingArgs → ExtenderBindingResult. On the bind leader (or a
   * single replica) the pod is bound here; elsewhere the body is forwarded to the leader. No
   * reachable leader: {@code Error} "no bind leader: ...", and kube-scheduler retries the pod.
   */
  private String bind(byte[] body, @Nullable String forwardedBy) {
    if (leadership.isLeader()) {
      return timed("bind", () -> codec.write(handler.bind(codec.readBindingArgs(body))));
    }
    long start = System.nanoTime();
    try {
      return forwardToLeader(body, forwardedBy);
    } finally {
      metrics.latency("bind", Duration.ofNanos(System.nanoTime() - start));
    }
  }

  private String forwardToLeader(byte[] body, @Nullable String from) {
    if (from != null) {
      return noLeader(
          "this replica ("
              + leadership.identity()
              + ") is not the bind leader; the bind was forwarded here by "
              + from);
    }
    Optional<String> holder = leadership.leaderUrl();
    if (holder.isPresent() && holder.get().equals(leadership.identity())) {
      return noLeader(
          "this replica holds the bind Lease "
              + leadership.lease()
              + " but is not binding yet (catching up with the pods bound before) or lost it");
    }
    Optional<String> leader = holder;
    if (leader.isEmpty()) {
      return noLeader("no replica holds the bind Lease " + leadership.lease() + " yet");
    }
    try {
      String answer = forwarder.forward(leader.get(), body, leadership.identity());
      metrics.decision("bind", "forwarded");
      return answer;
    } catch (IOException e) {
      // the exception names its class: it goes to the log, not into the answer
      LOG.warn("forwarding a bind to {} failed: {}", leader.get(), e.toString());
      return noLeader("forwarding to " + leader.get() + " failed; the scheduler will retry");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return noLeader("interrupted while forwarding to " + leader.get());
    }
  }

  private String noLeader(String why) {
    metrics.rejection("bind", "no-leader");
    return codec.write(new ExtenderBindingResult("no bind leader: " + why));
  }

  private String reject(HttpServletRequest request, int status, String message) {
    String verb = verbOf(request.getRequestURI().substring(request.getContextPath().length()));
    metrics.rejection(verb == null ? "other" : verb, "malformed");
    RejectionLog.rejected(request.getRequestURI(), status, message);
    return error(message);
  }

  private String error(String message) {
    return codec.write(Map.of("Error", message));
  }

  /** A method name as the answer may repeat it: letters only, at most 16 of them. */
  private static String printable(@Nullable String method) {
    if (method == null || method.length() > 16 || !method.chars().allMatch(Character::isLetter)) {
      return "(unrecognised)";
    }
    return method;
  }

  /**
   * Accepts no Content-Type (lenient), {@code application/json} or {@code application/*+json}, in
   * UTF-8; kube-scheduler sends {@code application/json}.
   */
  private static void requireJson(@Nullable String type) {
    if (type == null || type.isBlank() || JSON.equals(type)) {
      return;
    }
    MediaType media;
    try {
      media = MediaType.parseMediaType(type);
    } catch (InvalidMediaTypeException e) {
      throw new UnsupportedType();
    }
    boolean json =
        (MediaType.APPLICATION_JSON.isCompatibleWith(media)
                && !media.isWildcardType()
                && !media.isWildcardSubtype())
            || ("application".equals(media.getType()) && media.getSubtype().endsWith("+json"));
    Charset charset;
    try {
      charset = media.getCharset();
    } catch (IllegalArgumentException e) {
      throw new UnsupportedType();
    }
    if (!json || (charset != null && !StandardCharsets.UTF_8.equals(charset))) {
      throw new UnsupportedType();
    }
  }

  /** A request whose Content-Type the verbs do not read. */
  static final class UnsupportedType extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnsupportedType() {
      super(null, null, false, false);
    }
  }

  private String timed(String verb, Supplier<String> call) {
    long start = System.nanoTime();
    try {
      return call.get();
    } finally {
      metrics.latency(verb, Duration.ofNanos(System.nanoTime() - start));
    }
  }
}
