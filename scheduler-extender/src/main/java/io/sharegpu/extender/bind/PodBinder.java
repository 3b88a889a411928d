package io.sharegpu.extender.bind;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.mapping.DemandMapper;
import io.sharegpu.extender.mapping.PodDemands;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.scheduling.BindTicket;
import io.sharegpu.extender.scheduling.SchedulingState;
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
 * annotations, or annotated without being bound. The GPUs are held by a {@link BindTicket}: any
 * failure, an exception included, releases them (the ticket is closed on every path) and answers an
 * error; it never answers success without a Binding.
 */
public final class PodBinder {

  private static final Logger LOG = LoggerFactory.getLogger(PodBinder.class);
  private static final String NOT_LEADER =
      "no bind leader: this replica lost the bind Lease while binding; the scheduler will retry";

  /** The binder's reads and writes of pods on the API server (a seam for fault tests). */
  interface PodApi {
    /** The pod, null when it does not exist. */
    @Nullable Pod read(String namespace, String name);

    /** Creates {@code binding} in its namespace. */
    void createBinding(Binding binding);

    static PodApi of(KubernetesClient client) {
      return new PodApi() {
        @Override
        public @Nullable Pod read(String namespace, String name) {
          return client.pods().inNamespace(namespace).withName(name).get();
        }

        @Override
        public void createBinding(Binding binding) {
          client
              .bindings()
              .inNamespace(binding.getMetadata().getNamespace())
              .resource(binding)
              .create();
        }
      };
    }
  }

  /** The pod informer's copy of a pod, empty when it has none. */
  interface PodCache {
    Optional<Pod> cachedPod(String namespace, String name);
  }

  private final PodApi api;
  private final PodCache cache;
  private final SchedulingState state;
  private final PodEvents events;
  private final ExtenderMetrics metrics;
  private final BooleanSupplier mayBind;

  /** Creates the binder of a single replica (it always may bind). */
  public PodBinder(
      KubernetesClient client,
      ClusterFeed feed,
      SchedulingState state,
      PodEvents events,
      ExtenderMetrics metrics) {
    this(client, feed, state, events, metrics, () -> true);
  }

  /**
   * Creates the binder.
   *
   * @param mayBind whether this replica still holds the bind leadership; checked before GPUs are
   *     chosen and again right before the Binding is created
   */
  public PodBinder(
      KubernetesClient client,
      ClusterFeed feed,
      SchedulingState state,
      PodEvents events,
      ExtenderMetrics metrics,
      BooleanSupplier mayBind) {
    this(PodApi.of(client), feed::cachedPod, state, events, metrics, mayBind);
  }

  PodBinder(
      PodApi api,
      PodCache cache,
      SchedulingState state,
      PodEvents events,
      ExtenderMetrics metrics,
      BooleanSupplier mayBind) {
    this.api = api;
    this.cache = cache;
    this.state = state;
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
    if (!state.isReady()) {
      return BindOutcome.failed("not-ready", "the extender is still rebuilding its GPU ledger");
    }
    Pod pod = cache.cachedPod(namespace, name).filter(p -> sameUid(p, uid)).orElse(null);
    if (pod == null) {
      try {
        pod = api.read(namespace, name);
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
    if (isBound(pod)) {
      return BindOutcome.failed(
          "already-bound", "pod " + key + " is already bound to " + pod.getSpec().getNodeName());
    }
    PodDemands.Outcome asked = PodDemands.of(pod);
    if (asked instanceof PodDemands.Invalid invalid) {
      events.warning(
          namespace,
          name,
          pod.getMetadata().getUid(),
          PodEvents.INVALID_REQUEST,
          invalid.message());
      return BindOutcome.failed("invalid-request", invalid.message());
    }
    if (!(asked instanceof PodDemands.Demand d)) {
      return bindWithoutGpu(pod, node);
    }
    PodDemand demand = d.demand();
    BindTicket ticket;
    try {
      ticket = state.beginBind(demand, node);
    } catch (RuntimeException e) {
      return fail(pod, "internal", "cannot reserve GPUs on " + node + ": " + e.getMessage());
    }
    try (ticket) {
      if (ticket.refusal().isPresent()) {
        return BindOutcome.failed(
            "already-bound", "pod " + key + " cannot be bound now: " + ticket.refusal().get());
      }
      return bindHolding(pod, demand, node, ticket);
    }
  }

  /**
   * Creates the Binding for GPUs held by {@code ticket}; commits the ticket only once the Binding
   * was created, keeps it reserved when that is unknown (no answer, or an exception once the
   * Binding may have been sent). Every other exit, exceptions before that included, lets the
   * caller's close release the GPUs.
   */
  private BindOutcome bindHolding(Pod pod, PodDemand demand, String node, BindTicket ticket) {
    if (!mayBind.getAsBoolean()) {
      return fail(pod, "not-leader", NOT_LEADER);
    }
    if (ticket.allocation().isEmpty()) {
      String reason = ticket.noFit().orElse("");
      return fail(pod, "no-fit", "GPUs on " + node + " no longer fit: " + reason);
    }
    Allocation a = ticket.allocation().get();
    Map<String, String> annotations =
        AssignmentAnnotations.encode(DemandMapper.toAssignment(a), Instant.now());
    if (!mayBind.getAsBoolean()) {
      return fail(pod, "not-leader", NOT_LEADER);
    }
    try {
      return createAndCommit(pod, demand, node, annotations, ticket);
    } catch (RuntimeException | Error e) {
      // the Binding may have reached the API server before this failed: hold the GPUs as a
      // reservation (the informer or the TTL settles it), never free them for another pod now
      ticket.keepReserved();
      throw e;
    }
  }

  /** Creates the Binding, with one retry after a conflict; commits the ticket on success. */
  private BindOutcome createAndCommit(
      Pod pod, PodDemand demand, String node, Map<String, String> annotations, BindTicket ticket) {
    String podUid = demand.podUid();
    Allocation a = ticket.allocation().orElseThrow();
    try {
      createBinding(pod, node, annotations, true);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        return afterBindingFailure(pod, node, ticket, e);
      }
      // Either this bind's own Binding already landed (an earlier attempt whose answer was lost,
      // retried by the client: the retry meets the pod bound) or a newer version of the pod than
      // the one read (often the informer's copy being behind): read it again; retry once if it is
      // still the same, unbound pod asking for the same.
      Pod now = readPod(pod);
      if (boundByThisBind(now, podUid, node, annotations)) {
        ticket.commit();
        LOG.debug("{}: the Binding answered 409 but had landed already", demand.podKey());
        return BindOutcome.bound(a);
      }
      Optional<Pod> fresh = freshUnchanged(pod, demand, now);
      if (fresh.isEmpty()) {
        return fail(pod, "conflict", conflict(pod, e));
      }
      try {
        createBinding(fresh.get(), node, annotations, true);
      } catch (KubernetesClientException again) {
        if (again.getCode() == 409) {
          if (boundByThisBind(readPod(pod), podUid, node, annotations)) {
            ticket.commit();
            return BindOutcome.bound(a);
          }
          return fail(pod, "conflict", conflict(pod, again));
        }
        return afterBindingFailure(pod, node, ticket, again);
      }
    }
    ticket.commit();
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
      return api.read(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
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
    if (!(PodDemands.of(now) instanceof PodDemands.Demand asked)
        || !asked.demand().equals(demand)) {
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
    api.createBinding(binding);
  }

  /**
   * The Binding request failed. A 4xx means it certainly was not created: release. Otherwise (5xx,
   * timeout) it may have been: look at the pod; bound to this node = success; unbound after a 5xx =
   * release; unbound with no answer at all, or unreadable = keep the GPUs held until the informer
   * or the reservation TTL settles it, and answer an error.
   */
  private BindOutcome afterBindingFailure(
      Pod pod, String node, BindTicket ticket, KubernetesClientException e) {
    String podUid = pod.getMetadata().getUid();
    int code = e.getCode();
    if (code >= 400 && code < 500) {
      return fail(pod, "binding-rejected", "the API server refused the Binding: " + apiError(e));
    }
    Allocation a = ticket.allocation().orElseThrow();
    Pod now;
    try {
      now = api.read(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
    } catch (KubernetesClientException unknown) {
      ticket.keepReserved();
      return fail(
          pod,
          "binding-unknown",
          "creating the Binding failed and the pod cannot be read: " + apiError(e));
    }
    if (now != null
        && podUid.equals(now.getMetadata().getUid())
        && node.equals(now.getSpec().getNodeName())) {
      ticket.commit();
      return BindOutcome.bound(a);
    }
    if (now != null && podUid.equals(now.getMetadata().getUid()) && !isBound(now) && code <= 0) {
      // no answer at all (timeout, connection lost): the request may still reach the API server
      // and bind the pod with this assignment; hold the GPUs until the informer or the
      // reservation TTL settles it (a retry of this pod's bind replaces the hold)
      ticket.keepReserved();
      return fail(pod, "binding-unknown", "creating the Binding got no answer: " + e.getMessage());
    }
    if (now == null || !podUid.equals(now.getMetadata().getUid()) || !isBound(now)) {
      return fail(pod, "binding-failed", "creating the Binding failed: " + apiError(e));
    }
    return fail(pod, "binding-failed", "pod is bound elsewhere: " + now.getSpec().getNodeName());
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
