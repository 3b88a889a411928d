package io.sharegpu.extender.web;

import io.sharegpu.extender.bind.BindForwarder;
import io.sharegpu.extender.bind.BindLeadership;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import jakarta.servlet.http.HttpServletRequest;
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
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * kube-scheduler's extender endpoints. Bodies are read and written with {@link WireCodec}: filter
 * and prioritize with its streaming reader and writer (only the Pod fields the extender uses),
 * everything else with fabric8's Jackson so embedded Pods and Nodes decode exactly as Kubernetes
 * writes them. A body that is not what kube-scheduler sends (not JSON, not UTF-8, wrong types, null
 * or over-long fields, not {@code application/json}) is answered with a 4xx status and {@code
 * {"Error": "..."}}, a generic message that names the place in the request but no internal type
 * (kube-scheduler treats any status but 200 as a failed call); a well-formed request the extender
 * cannot serve is answered 200 with {@code Error} set, as the protocol has it. With bind leader
 * election, a replica that is not the bind leader forwards {@code /bind} unchanged to the leader
 * and returns its answer; filter and prioritize are answered by every replica.
 */
@RestController
public class ExtenderController {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderController.class);

  private final ExtenderHandler handler;
  private final WireCodec codec;
  private final ExtenderMetrics metrics;
  private final BindLeadership leadership;
  private final BindForwarder forwarder;

  /** Creates the controller for a single replica (it always binds). */
  public ExtenderController(ExtenderHandler handler, WireCodec codec, ExtenderMetrics metrics) {
    this(
        handler,
        codec,
        metrics,
        BindLeadership.single(metrics),
        new BindForwarder(Duration.ofSeconds(2), Duration.ofSeconds(10)));
  }

  /** Creates the controller; binds go to this replica only while it is the bind leader. */
  @Autowired
  public ExtenderController(
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

  /** {@code POST /filter}: ExtenderArgs → ExtenderFilterResult. */
  @PostMapping(path = "/filter", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> filter(
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) @Nullable String type) {
    requireJson(type);
    return timed(
        "filter",
        () -> codec.writeFilterResult(handler.filter(codec.readCheckedArgs(nonNull(body)))));
  }

  /** {@code POST /prioritize}: ExtenderArgs → a JSON array of HostPriority. */
  @PostMapping(path = "/prioritize", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> prioritize(
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) @Nullable String type) {
    requireJson(type);
    return timed(
        "prioritize",
        () -> codec.writePriorities(handler.prioritize(codec.readCheckedArgs(nonNull(body)))));
  }

  /** {@code POST /preempt}: ExtenderPreemptionArgs → ExtenderPreemptionResult. */
  @PostMapping(path = "/preempt", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> preempt(
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) @Nullable String type) {
    requireJson(type);
    return timed(
        "preempt", () -> codec.write(handler.preempt(codec.readPreemptionArgs(nonNull(body)))));
  }

  /**
   * {@code POST /bind}: ExtenderBindingArgs → ExtenderBindingResult. On the bind leader (or a
   * single replica) the pod is bound here; elsewhere the body is forwarded to the leader. No
   * reachable leader: {@code Error} "no bind leader: ...", and kube-scheduler retries the pod.
   */
  @PostMapping(path = "/bind", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> bind(
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = BindForwarder.FORWARDED_HEADER, required = false)
          @Nullable String forwardedBy,
      @RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) @Nullable String type) {
    requireJson(type);
    if (leadership.isLeader()) {
      return timed("bind", () -> codec.write(handler.bind(codec.readBindingArgs(nonNull(body)))));
    }
    long start = System.nanoTime();
    try {
      return ResponseEntity.ok()
          .contentType(MediaType.APPLICATION_JSON)
          .body(forwardToLeader(nonNull(body), forwardedBy));
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

  /** A body that is not the expected JSON: 400 with the reason. */
  @ExceptionHandler(MalformedRequestException.class)
  public ResponseEntity<String> malformed(MalformedRequestException e, HttpServletRequest request) {
    return reject(request, HttpStatus.BAD_REQUEST, e.getMessage());
  }

  /** A Content-Type that is not JSON, or not UTF-8: 415. */
  @ExceptionHandler({HttpMediaTypeNotSupportedException.class, UnsupportedType.class})
  public ResponseEntity<String> unsupportedType(Exception e, HttpServletRequest request) {
    return reject(
        request, HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json");
  }

  /** A body Spring could not read at all (the connection broke, ...): 400. */
  @ExceptionHandler(HttpMessageNotReadableException.class)
  public ResponseEntity<String> unreadable(
      HttpMessageNotReadableException e, HttpServletRequest request) {
    return reject(request, HttpStatus.BAD_REQUEST, "cannot read the request body");
  }

  /**
   * Anything else is a fault of the extender, not of the request: 500 with a generic message, the
   * exception logged once with its stack.
   */
  @ExceptionHandler(RuntimeException.class)
  public ResponseEntity<String> internal(RuntimeException e, HttpServletRequest request) {
    LOG.error("failed to answer {}", request.getRequestURI(), e);
    return error(HttpStatus.INTERNAL_SERVER_ERROR, "internal error; see the extender's log");
  }

  private ResponseEntity<String> reject(
      HttpServletRequest request, HttpStatus status, String message) {
    String verb = verb(request.getRequestURI());
    metrics.rejection(verb, "malformed");
    RejectionLog.rejected(request.getRequestURI(), status.value(), message);
    return error(status, message);
  }

  private ResponseEntity<String> error(HttpStatus status, String message) {
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .body(codec.write(Map.of("Error", message)));
  }

  private static String verb(String uri) {
    int slash = uri.lastIndexOf('/');
    return slash < 0 ? uri : uri.substring(slash + 1);
  }

  /**
   * Accepts no Content-Type (lenient), {@code application/json} or {@code application/*+json}, in
   * UTF-8; kube-scheduler sends {@code application/json}.
   */
  private static void requireJson(@Nullable String type) {
    if (type == null || type.isBlank()) {
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

  private ResponseEntity<String> timed(String verb, Supplier<String> call) {
    long start = System.nanoTime();
    try {
      return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(call.get());
    } finally {
      metrics.latency(verb, Duration.ofNanos(System.nanoTime() - start));
    }
  }

  private static byte[] nonNull(byte[] body) {
    return body == null ? new byte[0] : body;
  }
}
