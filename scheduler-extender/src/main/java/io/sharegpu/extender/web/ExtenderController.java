package io.sharegpu.extender.web;

import io.sharegpu.extender.metrics.ExtenderMetrics;
import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * kube-scheduler's extender endpoints. Bodies are read and written with {@link WireCodec}
 * (fabric8's Jackson) so the embedded Pods and Nodes decode exactly as Kubernetes writes them.
 * Malformed JSON gets a 400 with a one-line message.
 */
@RestController
public class ExtenderController {

  private final ExtenderHandler handler;
  private final WireCodec codec;
  private final ExtenderMetrics metrics;

  /** Creates the controller. */
  public ExtenderController(ExtenderHandler handler, WireCodec codec, ExtenderMetrics metrics) {
    this.handler = handler;
    this.codec = codec;
    this.metrics = metrics;
  }

  /** {@code POST /filter}: ExtenderArgs → ExtenderFilterResult. */
  @PostMapping(path = "/filter", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> filter(@RequestBody(required = false) byte[] body) {
    return timed("filter", () -> handler.filter(codec.read(nonNull(body), ExtenderArgs.class)));
  }

  /** {@code POST /prioritize}: ExtenderArgs → a JSON array of HostPriority. */
  @PostMapping(path = "/prioritize", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> prioritize(@RequestBody(required = false) byte[] body) {
    return timed(
        "prioritize", () -> handler.prioritize(codec.read(nonNull(body), ExtenderArgs.class)));
  }

  /** {@code POST /bind}: ExtenderBindingArgs → ExtenderBindingResult. */
  @PostMapping(path = "/bind", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> bind(@RequestBody(required = false) byte[] body) {
    return timed("bind", () -> handler.bind(codec.read(nonNull(body), ExtenderBindingArgs.class)));
  }

  /** A body that is not the expected JSON: 400 with the reason. */
  @ExceptionHandler(MalformedRequestException.class)
  public ResponseEntity<String> malformed(MalformedRequestException e) {
    return ResponseEntity.status(HttpStatus.BAD_REQUEST)
        .contentType(MediaType.APPLICATION_JSON)
        .body(codec.write(java.util.Map.of("error", e.getMessage())));
  }

  private ResponseEntity<String> timed(String verb, Supplier<Object> call) {
    long start = System.nanoTime();
    try {
      return ResponseEntity.ok()
          .contentType(MediaType.APPLICATION_JSON)
          .body(codec.write(call.get()));
    } finally {
      metrics.latency(verb, Duration.ofNanos(System.nanoTime() - start));
    }
  }

  private static byte[] nonNull(byte[] body) {
    return body == null ? new byte[0] : body;
  }
}
