package io.sharegpu.extender.bind;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer of GPU assignments. A bind, serialised per node: re-reads the pod, chooses GPUs
 * from the current ledger and reserves them, patches the pod's assignment annotations (with its uid
 * and resourceVersion as a precondition), creates the Binding ({@code metadata.uid} = the pod's
 * UID) and marks the allocation bound. Any failure releases what it reserved and answers an error;
 * it never answers success without a Binding.
 */
public final class PodBinder {

  private static final Logger LOG = LoggerFactory.getLogger(PodBinder.class);
  private static final String NOT_LEADER =
      "no bind leader: this replica lost the bind Lease while binding; the scheduler will retry";

  private final KubernetesClient client;
  private final ClusterView view;
  private final PodEvents events;
  private final ExtenderMetrics metrics;
  private final KubernetesSerialization json = new KubernetesSerialization();
  private final Map<String, ReentrantLock> nodeLocks = new ConcurrentHashMap<>();
  private final BooleanSupplier mayBind;

  /** Creates the binder of a single replica (it always may bind). */
  public PodBinder(
      KubernetesClient client, ClusterView view, PodEvents events, ExtenderMetrics metrics) {
    this(client, view, events, metrics, () -> true);
  }

  /**
   * Creates the binder.
   *
   * @param mayBind whether this replica still holds the bind leadership; checked before the
   *     assignment is written and again right before the Binding is created
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
    String key = namespace + "/" + name;
    if (!view.isReady()) {
      return BindOutcome.failed("not-ready", "the extender is still rebuilding its GPU ledger");
    }
    Pod pod;
    try {
      pod = client.pods().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      return BindOutcome.failed("api-error", "cannot read pod " + key + ": " + e.getMessage());
    }
    if (pod == null) {
      return BindOutcome.failed("pod-gone", "pod " + key + " does not exist");
    }
    if (!uid.isEmpty() && !uid.equals(pod.getMetadata().getUid())) {
      return BindOutcome.failed(
          "pod-gone", "pod " + key + " was recreated (UID " + pod.getMetadata().getUid() + ")");
    }
    String podUid = pod.getMetadata().getUid();
    if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty()) {
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
    ReentrantLock nodeLock = nodeLocks.computeIfAbsent(node, n -> new ReentrantLock());
    nodeLock.lock();
    try {
      Optional<Allocation> held = view.beginBind(podUid);
      if (held.isPresent()) {
        return BindOutcome.failed(
            "already-bound", "pod " + key + " already holds GPUs on " + held.get().node());
      }
      return bindLocked(pod, demand, node);
    } finally {
      nodeLock.unlock();
    }
  }

  private BindOutcome bindLocked(Pod pod, PodDemand demand, String node) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String podUid = demand.podUid();
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
    if (!mayBind.getAsBoolean()) {
      view.endBind(podUid, false);
      return fail(pod, "not-leader", NOT_LEADER);
    }
    Map<String, String> annotations =
        AssignmentAnnotations.encode(DemandMapper.toAssignment(a), Instant.now());
    try {
      patchAnnotations(pod, annotations);
    } catch (KubernetesClientException e) {
      view.endBind(podUid, false);
      String why =
          e.getCode() == 409
              ? "pod " + namespace + "/" + name + " changed while binding (conflict); will retry"
              : "cannot write the GPU assignment to the pod: " + e.getMessage();
      return fail(pod, e.getCode() == 409 ? "conflict" : "api-error", why);
    }
    if (!mayBind.getAsBoolean()) {
      view.endBind(podUid, false);
      clearAnnotations(pod, annotations);
      return fail(pod, "not-leader", NOT_LEADER);
    }
    try {
      Binding binding =
          new BindingBuilder()
              .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .withUid(podUid)
              .endMetadata()
              .withNewTarget()
              .withApiVersion("v1")
              .withKind("Node")
              .withName(node)
              .endTarget()
              .build();
      client.bindings().inNamespace(namespace).resource(binding).create();
    } catch (KubernetesClientException e) {
      return afterBindingFailure(pod, node, a, annotations, e);
    }
    view.endBind(podUid, true);
    events.normal(
        namespace,
        name,
        podUid,
        PodEvents.GPUS_ASSIGNED,
        "Assigned GPUs "
            + String.join(",", DemandMapper.toAssignment(a).gpuUuids())
            + " on "
            + node);
    LOG.debug("bound {} to {} on {}", demand.podKey(), a.uuids(), node);
    return BindOutcome.bound(a);
  }

  /**
   * The Binding request failed. A 4xx means it certainly was not created: release. Otherwise (5xx,
   * timeout) it may have been: look at the pod; bound to this node = success; unknown = keep the
   * GPUs held until the informer or the reservation TTL settles it, and answer an error.
   */
  private BindOutcome afterBindingFailure(
      Pod pod,
      String node,
      Allocation a,
      Map<String, String> annotations,
      KubernetesClientException e) {
    String podUid = a.podUid();
    int code = e.getCode();
    if (code >= 400 && code < 500) {
      view.endBind(podUid, false);
      clearAnnotations(pod, annotations);
      return fail(pod, "binding-rejected", "the API server refused the Binding: " + e.getMessage());
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
      if (now == null
          || !podUid.equals(now.getMetadata().getUid())
          || (now.getSpec().getNodeName() == null || now.getSpec().getNodeName().isEmpty())) {
        view.endBind(podUid, false);
        clearAnnotations(pod, annotations);
        return fail(pod, "binding-failed", "creating the Binding failed: " + e.getMessage());
      }
      view.endBind(podUid, false);
      return fail(pod, "binding-failed", "pod is bound elsewhere: " + now.getSpec().getNodeName());
    } catch (KubernetesClientException unknown) {
      view.endBindUncertain(podUid);
      return fail(
          pod,
          "binding-unknown",
          "creating the Binding failed and the pod cannot be read: " + e.getMessage());
    }
  }

  private BindOutcome bindWithoutGpu(Pod pod, String node) {
    try {
      client
          .bindings()
          .inNamespace(pod.getMetadata().getNamespace())
          .resource(
              new BindingBuilder()
                  .withNewMetadata()
                  .withName(pod.getMetadata().getName())
                  .withNamespace(pod.getMetadata().getNamespace())
                  .withUid(pod.getMetadata().getUid())
                  .endMetadata()
                  .withNewTarget()
                  .withApiVersion("v1")
                  .withKind("Node")
                  .withName(node)
                  .endTarget()
                  .build())
          .create();
      return BindOutcome.bound(null);
    } catch (KubernetesClientException e) {
      return fail(pod, "binding-rejected", "the API server refused the Binding: " + e.getMessage());
    }
  }

  private void patchAnnotations(Pod pod, Map<String, String> annotations) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("uid", pod.getMetadata().getUid());
    metadata.put("resourceVersion", pod.getMetadata().getResourceVersion());
    metadata.put("annotations", annotations);
    String patch = json.asJson(Map.of("metadata", metadata));
    client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  private void clearAnnotations(Pod pod, Map<String, String> written) {
    try {
      Map<String, Object> nulls = new LinkedHashMap<>();
      written.keySet().forEach(k -> nulls.put(k, null));
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("uid", pod.getMetadata().getUid());
      metadata.put("annotations", nulls);
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .patch(PatchContext.of(PatchType.JSON_MERGE), json.asJson(Map.of("metadata", metadata)));
    } catch (RuntimeException e) {
      LOG.debug(
          "cannot clear assignment annotations of {}: {}",
          pod.getMetadata().getName(),
          e.toString());
    }
  }

  private BindOutcome fail(Pod pod, String reason, String message) {
    events.warning(
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid(),
        PodEvents.BIND_FAILED,
        message);
    metrics.rejection("bind", reason);
    return BindOutcome.failed(reason, message);
  }
}
