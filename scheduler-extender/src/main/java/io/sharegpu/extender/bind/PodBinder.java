package io.sharegpu.extender.bind;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.cluster.ClusterView;
import io.sharegpu.extender.cluster.DemandMapper;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer of GPU assignments. A bind reads the pod (from the pod informer's cache, or the
 * API server when the cache does not have it), chooses GPUs from the current ledger and holds them
 * there (the choice is made under the ledger's lock, so binds to one node are decided one at a time
 * and each sees the GPUs the others hold), then creates the Binding with the assignment annotations
 * in its metadata: the API server copies them onto the pod in the same write that sets {@code
 * spec.nodeName}, under the Binding's preconditions ({@code metadata.uid} = the pod's UID, {@code
 * metadata.resourceVersion} = the version that was read). The pod is never seen bound without its
 * annotations, or annotated without being bound. Any failure releases the GPUs and answers an
 * error; it never answers success without a Binding.
 */
public final class PodBinder {

  private static final Logger LOG = LoggerFactory.getLogger(PodBinder.class);
  private static final String NOT_LEADER =
      "no bind leader: this replica lost the bind Lease while binding; the scheduler will retry";

  private final KubernetesClient client;
  private final ClusterView view;
  private final PodEvents events;
  private final ExtenderMetrics metrics;
  private final BooleanSupplier mayBind;

  /** Creates the binder of a single replica (it always may bind). */
  public PodBinder(
      KubernetesClient client, ClusterView view, PodEvents events, ExtenderMetrics metrics) {
    this(client, view, events, metrics, () -> true);
  }

  /**
   * Creates the binder.
   *
   * @param mayBind whether this replica still holds the bind leadership; checked before GPUs are
   *     chosen and again right before the Binding is created
   */
  public PodBinder(
      KubernetesClient client,
      ClusterView view,
      PodEvents events,
      ExtenderMetrics metrics,
      BooleanSupplier mayBind) {
    this.client = client;
    this.view = view;
    this.events = events;
    this.metrics = metrics;
    this.mayBind = mayBind;
  }

  /**
   * Binds pod {@code namespace/name} (UID {@code uid}) to {@code node}.
   *
   * @return the outcome; {@link BindOutcome#ok()} only after the Binding was created
   */
  public BindOutcome bind(String namespace, String name, String uid, String node) {
    BindOutcome outcome = bindOnce(namespace, name, uid, node);
    if (!outcome.ok()) {
      // every failed bind counted once by its reason, whichever step refused it
      metrics.rejection("bind", outcome.reason());
    }
    return outcome;
  }

  private BindOutcome bindOnce(String namespace, String name, String uid, String node) {
    String key = namespace + "/" + name;
    if (!view.isReady()) {
      return BindOutcome.failed("not-ready", "the extender is still rebuilding its GPU ledger");
    }
    Pod pod = view.cachedPod(namespace, name).filter(p -> sameUid(p, uid)).orElse(null);
    if (pod == null) {
      try {
        pod = client.pods().inNamespace(namespace).withName(name).get();
      } catch (KubernetesClientException e) {
        return BindOutcome.failed("api-error", "cannot read pod " + key + ": " + apiError(e));
      }
    }
    if (pod == null) {
      return BindOutcome.failed("pod-gone", "pod " + key + " does not exist");
    }
    if (!sameUid(pod, uid)) {
      return BindOutcome.failed(
          "pod-gone", "pod " + key + " was recreated (UID " + pod.getMetadata().getUid() + ")");
    }
    String podUid = pod.getMetadata().getUid();
    if (isBound(pod)) {
      return BindOutcome.failed(
          "already-bound", "pod " + key + " is already bound to " + pod.getSpec().getNodeName());
    }
    ParsedRequest parsed = PodGpuRequestParser.parse(pod);
    if (parsed instanceof ParsedRequest.Invalid invalid) {
      String msg = "invalid GPU request: " + String.join("; ", invalid.errors());
      events.warning(namespace, name, podUid, PodEvents.INVALID_REQUEST, msg);
      return BindOutcome.failed("invalid-request", msg);
    }
    if (!(parsed instanceof ParsedRequest.Valid valid)) {
      return bindWithoutGpu(pod, node);
    }
    PodDemand demand = DemandMapper.toDemand(key, podUid, valid.request());
    Optional<String> refused = view.beginBind(podUid);
    if (refused.isPresent()) {
      return BindOutcome.failed(
          "already-bound", "pod " + key + " cannot be bound now: " + refused.get());
    }
    return bindStarted(pod, demand, node);
  }

  private BindOutcome bindStarted(Pod pod, PodDemand demand, String node) {
    String podUid = demand.podUid();
    if (!mayBind.getAsBoolean()) {
      view.endBind(podUid, false);
      return fail(pod, "not-leader", NOT_LEADER);
    }
    Optional<Allocation> chosen;
    try {
      chosen = view.reserveForBind(demand, node);
    } catch (RuntimeException e) {
      view.endBind(podUid, false);
      return fail(pod, "internal", "cannot reserve GPUs on " + node + ": " + e.getMessage());
    }
    if (chosen.isEmpty()) {
      String reason = view.withPlacement(p -> p.explain(demand, node)).reason();
      view.endBind(podUid, false);
      return fail(pod, "no-fit", "GPUs on " + node + " no longer fit: " + reason);
    }
    Allocation a = chosen.get();
    Map<String, String> annotations =
        AssignmentAnnotations.encode(DemandMapper.toAssignment(a), Instant.now());
    if (!mayBind.getAsBoolean()) {
      view.endBind(podUid, false);
      return fail(pod, "not-leader", NOT_LEADER);
    }
    try {
      createBinding(pod, node, annotations, true);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        return afterBindingFailure(pod, node, a, e);
      }
      // Either this bind's own Binding already landed (an earlier attempt whose answer was lost,
      // retried by the client: the retry meets the pod bound) or a newer version of the pod than
      // the one read (often the informer's copy being behind): read it again; retry once if it is
      // still the same, unbound pod asking for the same.
      Pod now = readPod(pod);
      if (boundByThisBind(now, podUid, node, annotations)) {
        view.endBind(podUid, true);
        LOG.debug("{}: the Binding answered 409 but had landed already", demand.podKey());
        return BindOutcome.bound(a);
      }
      Optional<Pod> fresh = freshUnchanged(pod, demand, now);
      if (fresh.isEmpty()) {
        view.endBind(podUid, false);
        return fail(pod, "conflict", conflict(pod, e));
      }
      try {
        createBinding(fresh.get(), node, annotations, true);
      } catch (KubernetesClientException again) {
        if (again.getCode() == 409) {
          if (boundByThisBind(readPod(pod), podUid, node, annotations)) {
            view.endBind(podUid, true);
            return BindOutcome.bound(a);
          }
          view.endBind(podUid, false);
          return fail(pod, "conflict", conflict(pod, again));
        }
        return afterBindingFailure(pod, node, a, again);
      }
    }
    view.endBind(podUid, true);
    LOG.debug("bound {} to {} on {}", demand.podKey(), a.uuids(), node);
    return BindOutcome.bound(a);
  }

  private static String conflict(Pod pod, KubernetesClientException e) {
    return "pod "
        + pod.getMetadata().getNamespace()
        + "/"
        + pod.getMetadata().getName()
        + " changed while binding (conflict: "
        + apiError(e)
        + "); will retry";
  }

  /** The pod read from the API server; null when it is gone or cannot be read. */
  private @Nullable Pod readPod(Pod pod) {
    try {
      return client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .get();
    } catch (KubernetesClientException e) {
      return null;
    }
  }

  /**
   * Whether {@code now} is the pod bound to {@code node} with exactly this bind's assignment: the
   * Binding this bind created landed, whatever answer the client got.
   */
  private static boolean boundByThisBind(
      @Nullable Pod now, String podUid, String node, Map<String, String> annotations) {
    if (now == null
        || !podUid.equals(now.getMetadata().getUid())
        || !node.equals(now.getSpec() == null ? null : now.getSpec().getNodeName())) {
      return false;
    }
    Map<String, String> has = now.getMetadata().getAnnotations();
    return has != null && has.entrySet().containsAll(annotations.entrySet());
  }

  /** The pod read again, if it is still unbound, not deleted and asks for the same GPUs. */
  private Optional<Pod> freshUnchanged(Pod pod, PodDemand demand, @Nullable Pod now) {
    if (now == null
        || !demand.podUid().equals(now.getMetadata().getUid())
        || isBound(now)
        || now.getMetadata().getDeletionTimestamp() != null
        || Objects.equals(
            now.getMetadata().getResourceVersion(), pod.getMetadata().getResourceVersion())) {
      return Optional.empty();
    }
    if (!(PodGpuRequestParser.parse(now) instanceof ParsedRequest.Valid valid)
        || !DemandMapper.toDemand(demand.podKey(), demand.podUid(), valid.request())
            .equals(demand)) {
      return Optional.empty();
    }
    return Optional.of(now);
  }

  /**
   * Creates the Binding of {@code pod} to {@code node}. The API server copies the Binding's
   * annotations onto the pod in the same update that sets {@code spec.nodeName}, under the uid and
   * resourceVersion preconditions (a pod changed since it was read gives 409).
   */
  private void createBinding(
      Pod pod, String node, Map<String, String> annotations, boolean sameVersion) {
    Binding binding =
        new BindingBuilder()
            .withNewMetadata()
            .withName(pod.getMetadata().getName())
            .withNamespace(pod.getMetadata().getNamespace())
            .withUid(pod.getMetadata().getUid())
            .withResourceVersion(sameVersion ? pod.getMetadata().getResourceVersion() : null)
            .withAnnotations(annotations)
            .endMetadata()
            .withNewTarget()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(node)
            .endTarget()
            .build();
    client.bindings().inNamespace(pod.getMetadata().getNamespace()).resource(binding).create();
  }

  /**
   * The Binding request failed. A 4xx means it certainly was not created: release. Otherwise (5xx,
   * timeout) it may have been: look at the pod; bound to this node = success; unbound after a 5xx =
   * release; unbound with no answer at all, or unreadable = keep the GPUs held until the informer
   * or the reservation TTL settles it, and answer an error.
   */
  private BindOutcome afterBindingFailure(
      Pod pod, String node, Allocation a, KubernetesClientException e) {
    String podUid = a.podUid();
    int code = e.getCode();
    if (code >= 400 && code < 500) {
      view.endBind(podUid, false);
      return fail(pod, "binding-rejected", "the API server refused the Binding: " + apiError(e));
    }
    try {
      Pod now =
          client
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName())
              .get();
      if (now != null
          && podUid.equals(now.getMetadata().getUid())
          && node.equals(now.getSpec().getNodeName())) {
        view.endBind(podUid, true);
        return BindOutcome.bound(a);
      }
      if (now != null && podUid.equals(now.getMetadata().getUid()) && !isBound(now) && code <= 0) {
        // no answer at all (timeout, connection lost): the request may still reach the API server
        // and bind the pod with this assignment; hold the GPUs until the informer or the
        // reservation TTL settles it (a retry of this pod's bind replaces the hold)
        view.endBindUncertain(podUid);
        return fail(
            pod, "binding-unknown", "creating the Binding got no answer: " + e.getMessage());
      }
      view.endBind(podUid, false);
      if (now == null || !podUid.equals(now.getMetadata().getUid()) || !isBound(now)) {
        return fail(pod, "binding-failed", "creating the Binding failed: " + apiError(e));
      }
      return fail(pod, "binding-failed", "pod is bound elsewhere: " + now.getSpec().getNodeName());
    } catch (KubernetesClientException unknown) {
      view.endBindUncertain(podUid);
      return fail(
          pod,
          "binding-unknown",
          "creating the Binding failed and the pod cannot be read: " + apiError(e));
    }
  }

  private BindOutcome bindWithoutGpu(Pod pod, String node) {
    try {
      createBinding(pod, node, Map.of(), false);
      return BindOutcome.bound(null);
    } catch (KubernetesClientException e) {
      return fail(pod, "binding-rejected", "the API server refused the Binding: " + apiError(e));
    }
  }

  /**
   * Returns the API server's answer in words for an {@code Error}: its HTTP code and its Status
   * message, e.g. {@code HTTP 409: Operation cannot be fulfilled on pods/binding "a": pod a is
   * already assigned to node "n"}. Not fabric8's message, which names the API server's address and
   * the client's classes; that one goes to the debug log.
   */
  static String apiError(KubernetesClientException e) {
    LOG.debug("API request failed", e);
    int code = e.getCode();
    String message = e.getStatus() == null ? null : e.getStatus().getMessage();
    if (code <= 0) {
      return "the API server could not be reached";
    }
    return message == null || message.isBlank()
        ? "HTTP " + code
        : "HTTP " + code + ": " + (message.length() > 500 ? message.substring(0, 500) : message);
  }

  private static boolean sameUid(Pod pod, String uid) {
    return uid.isEmpty() || uid.equals(pod.getMetadata().getUid());
  }

  private static boolean isBound(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getNodeName() != null
        && !pod.getSpec().getNodeName().isEmpty();
  }

  private BindOutcome fail(Pod pod, String reason, String message) {
    events.warning(
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid(),
        PodEvents.BIND_FAILED,
        message);
    return BindOutcome.failed(reason, message);
  }
}
