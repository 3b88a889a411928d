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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
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

  @PostMapping(path = "/mutate-pods", consumes = "application/json", produces = "application/json")
  ResponseEntity<AdmissionReview> mutatePods(@RequestBody AdmissionReview review) {
    return review(review, Set.of());
  }

  /**
   * {@code POST /mutate-pods/translate/{peer}}: the same, for namespaces that opted in to a peer's
   * spelling (the chart routes them here by their {@code sharegpu.io/translate} label).
   */
  @PostMapping(
      path = "/mutate-pods/translate/{peer}",
      consumes = "application/json",
      produces = "application/json")
  ResponseEntity<AdmissionReview> mutatePodsTranslating(
      @PathVariable("peer") String peer, @RequestBody AdmissionReview review) {
    Set<Peer> peers;
    try {
      peers = Peer.parse(List.of(peer));
    } catch (IllegalArgumentException e) {
      metrics.record(AdmissionMetrics.ERROR);
      return ResponseEntity.status(HttpStatus.NOT_FOUND).build();
    }
    return review(review, peers);
  }

  private ResponseEntity<AdmissionReview> review(AdmissionReview review, Set<Peer> peers) {
    AdmissionRequest request = review.request();
    if (request == null || request.uid() == null) {
      metrics.record(AdmissionMetrics.ERROR);
      return ResponseEntity.status(HttpStatus.BAD_REQUEST).build();
    }
    String uid = request.uid();
    boolean pod =
        request.kind() != null
            && "Pod".equals(request.kind().kind())
            && (request.kind().group() == null || request.kind().group().isEmpty());
    if (!pod || !"CREATE".equals(request.operation()) || request.object() == null) {
      metrics.record(AdmissionMetrics.IGNORED);
      return ResponseEntity.ok(AdmissionReview.answer(AdmissionResponse.allow(uid)));
    }
    String podName = podName(request);
    AdmissionDecision decision;
    try {
      decision = policy.decide(mapper.treeToValue(request.object(), Pod.class), peers);
    } catch (JacksonException | IllegalArgumentException e) {
      metrics.record(AdmissionMetrics.ERROR);
      log.warn("cannot read pod {}: {}", podName, e.getMessage());
      return ResponseEntity.ok(
          AdmissionReview.answer(
              AdmissionResponse.deny(uid, 400, "sharegpu webhook cannot read the pod: " + e)));
    }
    metrics.record(decision.result());
    return ResponseEntity.ok(AdmissionReview.answer(respond(uid, podName, decision)));
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
