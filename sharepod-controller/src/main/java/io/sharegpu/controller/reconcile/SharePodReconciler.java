package io.sharegpu.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodStatus;
import io.sharegpu.controller.model.DesiredPod;
import io.sharegpu.controller.model.Observation;
import io.sharegpu.controller.model.PodSettings;
import io.sharegpu.controller.model.SharePodEvent;
import io.sharegpu.controller.model.SharePodEvents;
import io.sharegpu.controller.model.SharePodPods;
import io.sharegpu.controller.model.SharePodStatuses;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings one SharePod and its pod in line: reads the caches, computes the desired pod and the next
 * status with the pure functions of {@code model}, and writes only what differs. Every write is
 * idempotent: the pod has the SharePod's name (a second create fails with AlreadyExists, which is
 * handled), the status is written with the resourceVersion it was computed from (a conflict
 * requeues).
 *
 * <p>Lifecycle: a valid SharePod without a pod gets one, unless its status is final (the pod
 * completed); a pod deleted before it completed is created again; a completed pod is kept (for its
 * logs) and its SharePod keeps the final status even after the pod is deleted.
 */
public final class SharePodReconciler {

  /** How often a SharePod whose pod a ResourceQuota refused tries again. */
  static final Duration QUOTA_RETRY = Duration.ofSeconds(5);

  /** Reason of the Event recorded when the pod is created. */
  public static final String EVENT_CREATED_POD = "CreatedPod";

  /** Reason of the Event recorded when a pod deleted before completion is created again. */
  public static final String EVENT_RECREATED_POD = "RecreatedPod";

  private static final Logger log = LoggerFactory.getLogger(SharePodReconciler.class);

  private final KubernetesClient client;
  private final SharePodCaches caches;
  private final PodSettings settings;
  private final EventRecorder events;
  private final Clock clock;
  private final Counter podsCreated;

  SharePodReconciler(
      KubernetesClient client,
      SharePodCaches caches,
      PodSettings settings,
      EventRecorder events,
      Clock clock,
      MeterRegistry meters) {
    this.client = client;
    this.caches = caches;
    this.settings = settings;
    this.events = events;
    this.clock = clock;
    this.podsCreated =
        Counter.builder("sharegpu.controller.pod.creations")
            .description("Pods created for SharePods")
            .register(meters);
  }

  /**
   * Reconciles the SharePod named {@code key}; returns when to look again (empty: on the next
   * event). API errors propagate to the caller, which requeues with backoff.
   */
  public Optional<Duration> reconcile(ResourceKey key) {
    Optional<SharePod> cached = caches.sharePod(key);
    if (cached.isEmpty() || cached.get().getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty(); // the garbage collector deletes the pod with its owner
    }
    SharePod sharePod = cached.get();
    SharePodStatus before = sharePod.getStatus();
    DesiredPod desired = SharePodPods.desiredPod(sharePod, settings);
    List<SharePodEvent> toRecord = new ArrayList<>();
    Optional<Duration> requeue = Optional.empty();

    Pod pod = caches.pod(key).orElse(null);
    Observation observed;
    if (pod == null
        && !SharePodStatuses.isFinal(before)
        && desired instanceof DesiredPod.Valid valid) {
      try {
        pod = client.pods().inNamespace(key.namespace()).resource(valid.pod()).create();
        podsCreated.increment();
        boolean recreated = before != null && before.getPodName() != null;
        log.info(
            "{}: {} pod {} (gpu-milli {}, gpu-memory {})",
            key,
            recreated ? "recreated" : "created",
            key.name(),
            valid.request().computeMilli(),
            valid.request().memoryMib() == 0 ? "default" : valid.request().memoryMib() + " MiB");
        toRecord.add(
            recreated
                ? SharePodEvent.warning(
                    EVENT_RECREATED_POD,
                    "pod " + key.name() + " was deleted before it completed; created it again")
                : SharePodEvent.normal(EVENT_CREATED_POD, "created pod " + key.name()));
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
          // created before (by us before a restart, or our cache lags): use what is there
          pod = client.pods().inNamespace(key.namespace()).withName(key.name()).get();
          if (pod == null) {
            return Optional.of(Duration.ofMillis(200));
          }
        } else if (e.getCode() >= 400 && e.getCode() < 500) {
          observed =
              Observation.problem(
                  SharePodStatuses.REASON_FAILED_CREATE,
                  "creating pod " + key.name() + " failed: " + message(e));
          writeStatus(sharePod, observed, toRecord);
          if (exceedsQuota(e)) {
            // a ResourceQuota frees up when another pod ends, and nothing tells us when: look
            // again at a steady pace instead of an ever longer backoff
            return Optional.of(QUOTA_RETRY);
          }
          throw e; // requeue with backoff: an admission webhook may change its mind
        } else {
          throw e;
        }
      }
    }

    if (pod != null && !controlledBy(pod, sharePod)) {
      String message =
          controlledBySharePod(pod)
              ? "pod "
                  + key.name()
                  + " belongs to an earlier SharePod of the same name; waiting for it to be deleted"
              : "a pod named "
                  + key.name()
                  + " already exists and is not controlled by this SharePod; delete it or rename"
                  + " the SharePod";
      observed = Observation.problem(SharePodStatuses.REASON_POD_NAME_CONFLICT, message);
      requeue = Optional.of(Duration.ofSeconds(10));
    } else if (pod != null) {
      String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      observed =
          Observation.ofPod(
                  pod,
                  desired.errors(),
                  node == null || node.isEmpty() ? Map.of() : caches.gpuModels(node))
              .withNote(
                  desired instanceof DesiredPod.Valid valid
                      ? SharePodPods.gpuDrift(pod, valid.pod()).orElse(null)
                      : null);
    } else if (desired instanceof DesiredPod.Invalid invalid) {
      observed = Observation.invalid(invalid.errors());
    } else {
      observed = Observation.noPod();
    }
    writeStatus(sharePod, observed, toRecord);
    return requeue;
  }

  private void writeStatus(SharePod sharePod, Observation observed, List<SharePodEvent> toRecord) {
    SharePodStatus before = sharePod.getStatus();
    SharePodStatus next = SharePodStatuses.nextStatus(sharePod, observed, clock.instant());
    List<SharePodEvent> all = new ArrayList<>(toRecord);
    all.addAll(SharePodEvents.between(before, next));
    if (!sameStatus(before, next)) {
      SharePod update = new SharePod();
      update.setMetadata(new ObjectMetaBuilder(sharePod.getMetadata()).build());
      update.setSpec(sharePod.getSpec());
      update.setStatus(next);
      try {
        client
            .resources(SharePod.class)
            .inNamespace(sharePod.getMetadata().getNamespace())
            .resource(update)
            .updateStatus();
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
          return; // deleted meanwhile
        }
        // a conflict means our cache is behind: the update event that follows requeues the key
        for (SharePodEvent event : toRecord) {
          events.record(sharePod, event);
        }
        throw e;
      }
      if (!Objects.equals(phase(before), next.getPhase())) {
        log.info(
            "{}/{}: phase {} -> {}: {}",
            sharePod.getMetadata().getNamespace(),
            sharePod.getMetadata().getName(),
            phase(before),
            next.getPhase(),
            next.getMessage());
      }
    }
    for (SharePodEvent event : all) {
      events.record(sharePod, event);
    }
  }

  private boolean sameStatus(@Nullable SharePodStatus a, SharePodStatus b) {
    if (a == null) {
      return false;
    }
    var json = client.getKubernetesSerialization();
    return json.asJson(a).equals(json.asJson(b));
  }

  private static @Nullable String phase(@Nullable SharePodStatus status) {
    return status == null ? null : status.getPhase();
  }

  /** Returns true if {@code pod}'s controller is {@code sharePod} (same UID). */
  static boolean controlledBy(Pod pod, HasMetadata sharePod) {
    return controller(pod)
        .map(o -> Objects.equals(o.getUid(), sharePod.getMetadata().getUid()))
        .orElse(false);
  }

  private static boolean controlledBySharePod(Pod pod) {
    return controller(pod)
        .map(
            o ->
                "SharePod".equals(o.getKind())
                    && o.getApiVersion().startsWith(SharePod.GROUP + "/"))
        .orElse(false);
  }

  private static Optional<OwnerReference> controller(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    if (owners == null) {
      return Optional.empty();
    }
    return owners.stream().filter(o -> Boolean.TRUE.equals(o.getController())).findFirst();
  }

  /**
   * True for the API server's refusal of a pod that would exceed a ResourceQuota (403 Forbidden,
   * "exceeded quota: NAME, requested: ..., used: ..., limited: ...").
   */
  static boolean exceedsQuota(KubernetesClientException e) {
    return e.getCode() == HttpURLConnection.HTTP_FORBIDDEN && message(e).contains("exceeded quota");
  }

  private static String message(KubernetesClientException e) {
    if (e.getStatus() != null && e.getStatus().getMessage() != null) {
      return e.getStatus().getMessage();
    }
    return e.getMessage() == null ? "HTTP " + e.getCode() : e.getMessage();
  }
}
