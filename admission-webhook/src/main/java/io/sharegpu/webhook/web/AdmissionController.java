package io.sharegpu.webhook.web;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.webhook.admission.AdmissionDecision;
import io.sharegpu.webhook.admission.PodAdmissionPolicy;
import io.sharegpu.webhook.admission.spelling.Peer;
import io.sharegpu.webhook.web.AdmissionReview.AdmissionRequest;
import io.sharegpu.webhook.web.AdmissionReview.AdmissionResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /mutate-pods}: one mutating webhook that both denies and patches pods on CREATE.
 * Decodes the AdmissionReview, asks {@link PodAdmissionPolicy}, and answers with the verdict and,
 * when there is one, the base64 JSON Patch.
 */
@RestController
class AdmissionController {

  private static final Logger log = LoggerFactory.getLogger(AdmissionController.class);

  private final PodAdmissionPolicy policy;
  private final JsonMapper mapper;
  private final AdmissionMetrics metrics;

  AdmissionController(PodAdmissionPolicy policy, JsonMapper mapper, AdmissionMetrics metrics) {
    this.policy = policy;
    this.mapper = mapper;
    this.metrics = metrics;
  }

  /**
   * Answers an AdmissionReview. A body that is not one (not JSON, not UTF-8, not {@code
   * application/json}, no request or uid) gets a 4xx with a {@code metav1.Status} body; a review
   * whose pod cannot be read is denied with code 400 in the AdmissionReview. Messages name the
   * place in the request, never an internal type.
   */
  @PostMapping(path = "/mutate-pods", produces = "application/json")
  ResponseEntity<?> mutatePods(
      @RequestBody(required = false) byte @Nullable [] body,
      @RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) @Nullable String type) {
    return review(body, type, Set.of());
  }

  /**
   * {@code POST /mutate-pods/translate/{peer}}: the same, for namespaces that opted in to a peer's
   * spelling (the chart routes them here by their {@code sharegpu.io/translate} label). An unknown
   * peer is a 404.
   */
  @PostMapping(path = "/mutate-pods/translate/{peer}", produces = "application/json")
  ResponseEntity<?> mutatePodsTranslating(
      @PathVariable("peer") String peer,
      @RequestBody(required = false) byte @Nullable [] body,
      @RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) @Nullable String type) {
    Set<Peer> peers;
    try {
      peers = Peer.parse(List.of(peer));
    } catch (IllegalArgumentException e) {
      return reject(HttpStatus.NOT_FOUND, "no such translation");
    }
    return review(body, type, peers);
  }

  private ResponseEntity<?> review(byte @Nullable [] body, @Nullable String type, Set<Peer> peers) {
    if (!isJson(type)) {
      return reject(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json");
    }
    if (body == null || body.length == 0) {
      return reject(HttpStatus.BAD_REQUEST, "empty request body");
    }
    if (!ReviewErrors.isUtf8(body)) {
      return reject(HttpStatus.BAD_REQUEST, "request body is not UTF-8");
    }
    AdmissionReview review;
    boolean uidIsText;
    try {
      JsonNode tree = mapper.readTree(body);
      // a uid that is a number or a boolean would be coerced to text: kube-apiserver sends text
      uidIsText = tree.path("request").path("uid").isString();
      review = mapper.treeToValue(tree, AdmissionReview.class);
    } catch (JacksonException e) {
      return reject(HttpStatus.BAD_REQUEST, "not an AdmissionReview: " + ReviewErrors.describe(e));
    }
    AdmissionRequest request = review == null ? null : review.request();
    if (request == null || !uidIsText || !ReviewErrors.isUid(request.uid())) {
      return reject(HttpStatus.BAD_REQUEST, "AdmissionReview needs a request with a uid");
    }
    String uid = request.uid();
    boolean pod =
        request.kind() != null
            && "Pod".equals(request.kind().kind())
            && (request.kind().group() == null || request.kind().group().isEmpty());
    JsonNode object = request.object();
    if (!pod || !"CREATE".equals(request.operation()) || object == null || object.isNull()) {
      metrics.record(AdmissionMetrics.IGNORED);
      return ResponseEntity.ok(AdmissionReview.answer(AdmissionResponse.allow(uid)));
    }
    String podName = podName(request);
    Pod decoded;
    try {
      decoded = mapper.treeToValue(object, Pod.class);
    } catch (JacksonException | IllegalArgumentException e) {
      return unreadable(
          uid,
          podName,
          e instanceof JacksonException j ? ReviewErrors.describe(j) : "wrong type or value");
    }
    if (decoded == null) {
      return unreadable(uid, podName, "the object is not a pod");
    }
    var shape = PodShape.problem(decoded);
    if (shape.isPresent()) {
      return unreadable(uid, podName, shape.get());
    }
    AdmissionDecision decision = policy.decide(decoded, peers);
    metrics.record(decision.result());
    return ResponseEntity.ok(AdmissionReview.answer(respond(uid, podName, decision)));
  }

  private ResponseEntity<?> unreadable(String uid, String podName, String why) {
    metrics.record(AdmissionMetrics.ERROR);
    RejectionLog.rejected("/mutate-pods", 400, "cannot read pod " + safe(podName) + ": " + why);
    return ResponseEntity.ok(
        AdmissionReview.answer(
            AdmissionResponse.deny(uid, 400, "sharegpu webhook cannot read the pod: " + why)));
  }

  private ResponseEntity<?> reject(HttpStatus status, String message) {
    metrics.record(AdmissionMetrics.ERROR);
    RejectionLog.rejected("/mutate-pods", status.value(), message);
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .body(status(status.value(), message));
  }

  /** Returns a {@code metav1.Status} failure as JSON, as Kubernetes components answer errors. */
  static String status(int code, String message) {
    StringBuilder sb = new StringBuilder(128 + message.length());
    sb.append("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"");
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(' ');
      } else {
        sb.append(c);
      }
    }
    return sb.append("\",\"code\":").append(code).append('}').toString();
  }

  /** A Content-Type Spring cannot even parse: 415, as for any other type but JSON. */
  @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
  ResponseEntity<?> unsupportedType(HttpMediaTypeNotSupportedException e) {
    return reject(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json");
  }

  /** A body that could not be read at all: 400. */
  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<?> unreadableBody(HttpMessageNotReadableException e) {
    return reject(HttpStatus.BAD_REQUEST, "cannot read the request body");
  }

  /**
   * An internal fault (a bug, not the request's): 500 with a generic Status, logged once with its
   * stack; kube-apiserver then applies the webhook's failurePolicy.
   */
  @ExceptionHandler(RuntimeException.class)
  ResponseEntity<?> internal(RuntimeException e) {
    log.error("failed to answer an AdmissionReview", e);
    metrics.record(AdmissionMetrics.ERROR);
    return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR)
        .contentType(MediaType.APPLICATION_JSON)
        .body(status(500, "internal error; see the webhook's log"));
  }

  /** No Content-Type (lenient), or {@code application/json} in UTF-8. */
  private static boolean isJson(@Nullable String type) {
    if (type == null || type.isBlank()) {
      return true;
    }
    try {
      MediaType media = MediaType.parseMediaType(type);
      return MediaType.APPLICATION_JSON.getType().equals(media.getType())
          && MediaType.APPLICATION_JSON.getSubtype().equals(media.getSubtype())
          && (media.getCharset() == null || StandardCharsets.UTF_8.equals(media.getCharset()));
    } catch (IllegalArgumentException e) {
      return false; // InvalidMediaTypeException and unknown charsets
    }
  }

  private static String safe(String s) {
    String cut = s.length() > 120 ? s.substring(0, 120) + "..." : s;
    return cut.replaceAll("[^\\x20-\\x7e]", "?");
  }

  private AdmissionResponse respond(String uid, String podName, AdmissionDecision decision) {
    if (decision instanceof AdmissionDecision.Denied denied) {
      log.info("denied pod {}: {}", podName, denied.message());
      return AdmissionResponse.deny(uid, 403, denied.message());
    }
    if (decision instanceof AdmissionDecision.Patched patched) {
      byte[] json = mapper.writeValueAsString(patched.patch()).getBytes(StandardCharsets.UTF_8);
      log.info("patched pod {} with {} operations", podName, patched.patch().size());
      return AdmissionResponse.patch(uid, Base64.getEncoder().encodeToString(json));
    }
    log.debug("allowed pod {} unchanged ({})", podName, decision.result());
    return AdmissionResponse.allow(uid);
  }

  /** Returns "namespace/name", or "namespace/generateName*" for a pod named by the server. */
  private static String podName(AdmissionRequest request) {
    String name = request.name();
    if ((name == null || name.isEmpty()) && request.object() != null) {
      var generate = request.object().path("metadata").path("generateName");
      name = generate.isString() ? generate.asString() + "*" : "";
    }
    return (request.namespace() == null ? "" : request.namespace()) + "/" + name;
  }
}
