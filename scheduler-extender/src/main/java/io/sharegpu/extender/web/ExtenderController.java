package io.sharegpu.extender.web;

import io.sharegpu.extender.bind.BindForwarder;
import io.sharegpu.extender.bind.BindLeadership;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * kube-scheduler's extender endpoints. Bodies are read and written with {@link WireCodec}: filter
 * and prioritize with its streaming reader and writer (only the Pod fields the extender uses),
 * everything else with fabric8's Jackson so embedded Pods and Nodes decode exactly as Kubernetes
 * writes them. Malformed JSON gets a 400 with a one-line message. With bind leader election, a
 * replica that is not the bind leader forwards {@code /bind} unchanged to the leader and returns
 * its answer; filter and prioritize are answered by every replica.
 */
@RestController
public class ExtenderController {

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
  public ResponseEntity<String> filter(@RequestBody(required = false) byte[] body) {
    return timed(
        "filter", () -> codec.writeFilterResult(handler.filter(codec.readArgs(nonNull(body)))));
  }

  /** {@code POST /prioritize}: ExtenderArgs → a JSON array of HostPriority. */
  @PostMapping(path = "/prioritize", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> prioritize(@RequestBody(required = false) byte[] body) {
    return timed(
        "prioritize",
        () -> codec.writePriorities(handler.prioritize(codec.readArgs(nonNull(body)))));
  }

  /** {@code POST /preempt}: ExtenderPreemptionArgs → ExtenderPreemptionResult. */
  @PostMapping(path = "/preempt", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> preempt(@RequestBody(required = false) byte[] body) {
    return timed(
        "preempt",
        () ->
            codec.write(handler.preempt(codec.read(nonNull(body), ExtenderPreemptionArgs.class))));
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
          @Nullable String forwardedBy) {
    if (leadership.isLeader()) {
      return timed(
          "bind",
          () -> codec.write(handler.bind(codec.read(nonNull(body), ExtenderBindingArgs.class))));
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
      return noLeader("forwarding to " + leader.get() + " failed: " + e);
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
  public ResponseEntity<String> malformed(MalformedRequestException e) {
    return ResponseEntity.status(HttpStatus.BAD_REQUEST)
        .contentType(MediaType.APPLICATION_JSON)
        .body(codec.write(java.util.Map.of("error", e.getMessage())));
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
