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
import io.sharegpu.controller.model.Preemption;
import io.sharegpu.controller.model.Preemptions;
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
 * logs) and its SharePod keeps the final status even after the pod is deleted. A pod that ended
 * because it was disrupted (DisruptionTarget=True: preempted, evicted, node shutdown) did not
 * complete: once it is gone it is replaced, and a disrupted pod that the kubelet left Failed or
 * Succeeded without deleting it is deleted so it can be. A pod kube-scheduler preempted is reported
 * in the condition Preempted, naming the preemptor from the scheduler's Preempted Event.
 */
public final class SharePodReconciler {

  /** How often a SharePod whose pod a ResourceQuota refused tries again. */
  static final Duration QUOTA_RETRY = Duration.ofSeconds(5);

  /** Reason of the Event recorded when the pod is created. */
  public static final String EVENT_CREATED_POD = "CreatedPod";

  /** Reason of the Event recorded when a pod deleted before completion is created again. */
  public static final String EVENT_RECREATED_POD = "RecreatedPod";

  /** How often a SharePod whose pod was preempted looks for the scheduler's Event. */
  static final Duration EVENT_POLL = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger(SharePodReconciler.class);

  private final KubernetesClient client;
  private final SharePodCaches caches;
  private final PodSettings settings;
  private final EventRecorder events;
  private final Clock clock;
  private final Counter podsCreated;
  private final WriteGuard guard;

  SharePodReconciler(
      KubernetesClient client,
      SharePodCaches caches,
      PodSettings settings,
      EventRecorder events,
      Clock clock,
      MeterRegistry meters,
      WriteGuard guard) {
    this.client = client;
    this.guard = guard;
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
      caches.forgetDisrupted(key);
      return Optional.empty(); // the garbage collector deletes the pod with its owner
    }
    SharePod sharePod = cached.get();
    SharePodStatus before = sharePod.getStatus();
    DesiredPod desired = SharePodPods.desiredPod(sharePod, settings);
    List<SharePodEvent> toRecord = new ArrayList<>();
    Optional<Duration> requeue = Optional.empty();

    Pod pod = caches.pod(key).orElse(null);
    Pod ours = pod != null && controlledBy(pod, sharePod) ? pod : null;
    Pod disrupted = disruptedPod(key, sharePod, ours);
    Preemption preemption = null;
    if (disrupted != null) {
      Optional<Preemption> seen = Preemptions.of(disrupted, caches.preemptedEvents(uid(disrupted)));
      Optional<Duration> wait =
          seen.isPresent() && !seen.get().named()
              ? Preemptions.eventWait(disrupted, clock.instant())
              : Optional.empty();
      if (wait.isPresent()) {
        // the scheduler records its Event after the deletion: give it a moment, so that the
        // condition and the Event name the preemptor
        requeue = Optional.of(wait.get().compareTo(EVENT_POLL) < 0 ? wait.get() : EVENT_POLL);
      } else {
        preemption = seen.orElse(null);
      }
    }
    if (ours != null
        && ours == disrupted
        && ours.getMetadata().getDeletionTimestamp() == null
        && isTerminal(ours)) {
      // the kubelet leaves an evicted pod Failed; the SharePod's next pod needs its name
      checkMayWrite(key, "deleting pod " + key.name());
      client.pods().inNamespace(key.namespace()).resource(ours).lockResourceVersion().delete();
      log.info(
          "{}: deleted pod {} ({}), stopped by a disruption, to create it again",
          key,
          key.name(),
          ours.getStatus().getPhase());
    }

    Observation observed;
    if (pod == null
        && !SharePodStatuses.isFinal(before)
        && desired instanceof DesiredPod.Valid valid) {
      checkMayWrite(key, "creating pod " + key.name());
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
                ? SharePodEvent.warning(EVENT_RECREATED_POD, recreatedMessage(key, disrupted))
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
                      "creating pod " + key.name() + " failed: " + message(e))
                  .withPreemption(preemption);
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
    writeStatus(sharePod, observed.withPreemption(preemption), toRecord);
    return requeue;
  }

  /**
   * Returns the SharePod's pod that was disrupted: {@code pod} itself, or the last pod seen
   * disrupted when {@code pod} (its successor) is missing or has not started yet; null when none. A
   * successor that started ends the story: the remembered pod is forgotten.
   */
  private @Nullable Pod disruptedPod(ResourceKey key, SharePod sharePod, @Nullable Pod pod) {
    if (pod != null && Preemptions.disrupted(pod)) {
      return pod;
    }
    Optional<Pod> last = caches.lastDisrupted(key).filter(p -> controlledBy(p, sharePod));
    if (last.isEmpty()) {
      return null;
    }
    if (pod == null) {
      return last.get();
    }
    if (Objects.equals(uid(pod), uid(last.get())) || Preemptions.started(pod)) {
      caches.forgetDisrupted(key);
      return null;
    }
    return last.get();
  }

  private static String recreatedMessage(ResourceKey key, @Nullable Pod disrupted) {
    if (disrupted == null) {
      return "pod " + key.name() + " was deleted before it completed; created it again";
    }
    String reason =
        Preemptions.disruption(disrupted).map(c -> c.getReason()).orElse("DisruptionTarget");
    return "pod "
        + key.name()
        + " was stopped before it completed ("
        + reason
        + "); created it again, it waits for GPUs like any new pod";
  }

  private static boolean isTerminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Failed".equals(phase) || "Succeeded".equals(phase);
  }

  private static @Nullable String uid(Pod pod) {
    return pod.getMetadata().getUid();
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
      checkMayWrite(
          new ResourceKey(sharePod.getMetadata().getNamespace(), sharePod.getMetadata().getName()),
          "writing the status");
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

  /**
   * Refuses a write unless this replica may make it (it holds the Lease): the reconcile ends and
   * the worker requeues the key.
   */
  private void checkMayWrite(ResourceKey key, String write) {
    if (!guard.mayWrite()) {
      throw new NotLeaderException(key + ": not the leader, " + write + " skipped");
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
