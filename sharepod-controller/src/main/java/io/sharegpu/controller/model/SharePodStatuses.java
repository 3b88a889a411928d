package io.sharegpu.controller.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodConditions;
import io.sharegpu.api.sharepod.SharePodGpuStatus;
import io.sharegpu.api.sharepod.SharePodStatus;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Computes a SharePod's next status from what the reconciler observed. Pure: no I/O, the clock is
 * passed in and used only for the {@code lastTransitionTime} of a condition whose status changes.
 *
 * <p>Phases: {@code Pending} (no pod yet, the pod waits for the scheduler, or it is being stopped
 * for reasons outside it and a new one will follow), {@code Scheduled} (bound to a node and GPUs,
 * not running yet), {@code Running}, and the final {@code Succeeded} and {@code Failed} (the pod
 * completed by itself). Once final, a status never changes again, even when the pod is deleted. A
 * pod that ends because it was disrupted (condition DisruptionTarget=True: preempted, evicted, its
 * node shut down) did not complete: its SharePod is not final and gets a new pod. Conditions:
 * {@code Valid}, {@code Scheduled} and {@code Ready}, each with a reason, and {@code Preempted}
 * once the pod was preempted (True until a new pod started, then False).
 */
public final class SharePodStatuses {

  /** Scheduled/Ready reason: the pod could not be created (API error, quota, ...). */
  public static final String REASON_FAILED_CREATE = "FailedCreatePod";

  /** Scheduled/Ready reason: a pod of the same name exists that the SharePod does not control. */
  public static final String REASON_POD_NAME_CONFLICT = "PodNameConflict";

  private static final String POD_SCHEDULED = "PodScheduled";
  private static final String POD_READY = "Ready";
  private static final String TRUE = "True";
  private static final String FALSE = "False";

  private SharePodStatuses() {}

  /** Returns true once the SharePod's pod completed: the status is then final. */
  public static boolean isFinal(@Nullable SharePodStatus status) {
    return status != null
        && (SharePodStatus.PHASE_SUCCEEDED.equals(status.getPhase())
            || SharePodStatus.PHASE_FAILED.equals(status.getPhase()));
  }

  /** Returns the status {@code sharePod} should have given {@code observed}. */
  public static SharePodStatus nextStatus(SharePod sharePod, Observation observed, Instant now) {
    SharePodStatus previous = sharePod.getStatus();
    Pod pod = observed.pod();
    if (pod == null && isFinal(previous)) {
      return copy(previous);
    }
    Long generation = sharePod.getMetadata().getGeneration();
    SharePodStatus next = new SharePodStatus();
    next.setObservedGeneration(generation);
    List<Condition> conditions = new ArrayList<>();
    List<Condition> old = previous == null ? List.of() : previous.getConditions();
    Stamp stamp = new Stamp(old, generation, now);
    conditions.add(
        observed.errors().isEmpty()
            ? stamp.condition(
                SharePodConditions.VALID,
                TRUE,
                SharePodConditions.REASON_VALID,
                "spec.gpu and spec.template are valid")
            : stamp.condition(
                SharePodConditions.VALID,
                FALSE,
                SharePodConditions.REASON_INVALID_REQUEST,
                String.join("; ", observed.errors())));

    if (pod != null) {
      mirrorPod(pod, observed, next, conditions, stamp);
    } else {
      next.setPhase(SharePodStatus.PHASE_PENDING);
      String reason;
      String message;
      if (!observed.errors().isEmpty()) {
        reason = SharePodConditions.REASON_INVALID_REQUEST;
        message = "invalid SharePod, no pod created: " + String.join("; ", observed.errors());
      } else if (observed.problemReason() != null && observed.problemMessage() != null) {
        reason = observed.problemReason();
        message = observed.problemMessage();
      } else {
        reason = SharePodConditions.REASON_WAITING_FOR_SCHEDULING;
        message = "creating the pod";
      }
      next.setMessage(message);
      conditions.add(stamp.condition(SharePodConditions.SCHEDULED, FALSE, reason, message));
      conditions.add(
          stamp.condition(
              SharePodConditions.READY,
              FALSE,
              reason.equals(SharePodConditions.REASON_WAITING_FOR_SCHEDULING)
                  ? SharePodConditions.REASON_POD_NOT_READY
                  : reason,
              message));
    }
    preempted(old, observed, stamp).ifPresent(conditions::add);
    next.setConditions(conditions);
    return next;
  }

  /**
   * Returns the Preempted condition: True with the preemption in words when one is observed; once
   * True it stays so (same message and time) until a new pod started, then False, which it stays;
   * none while the SharePod was never preempted.
   */
  private static Optional<Condition> preempted(
      List<Condition> old, Observation observed, Stamp stamp) {
    Preemption preemption = observed.preemption();
    if (preemption != null) {
      return Optional.of(
          stamp.condition(
              SharePodConditions.PREEMPTED,
              TRUE,
              SharePodConditions.REASON_PREEMPTION_BY_SCHEDULER,
              preemption.message()));
    }
    Optional<Condition> before =
        old.stream().filter(c -> SharePodConditions.PREEMPTED.equals(c.getType())).findFirst();
    if (before.isEmpty()) {
      return Optional.empty();
    }
    Condition c = before.get();
    String message = c.getMessage() == null ? "" : c.getMessage();
    Pod pod = observed.pod();
    if (TRUE.equals(c.getStatus()) && pod != null && Preemptions.started(pod)) {
      return Optional.of(
          stamp.condition(
              SharePodConditions.PREEMPTED,
              FALSE,
              SharePodConditions.REASON_NEW_POD_STARTED,
              message + "; the new pod started"));
    }
    return Optional.of(
        stamp.condition(
            SharePodConditions.PREEMPTED,
            c.getStatus() == null ? FALSE : c.getStatus(),
            c.getReason() == null
                ? SharePodConditions.REASON_PREEMPTION_BY_SCHEDULER
                : c.getReason(),
            message));
  }

  private static void mirrorPod(
      Pod pod, Observation observed, SharePodStatus next, List<Condition> conditions, Stamp stamp) {
    Map<String, String> gpuModels = observed.gpuModels();
    String note = observed.note();
    String podName = pod.getMetadata().getName();
    String node = emptyToNull(pod.getSpec() == null ? null : pod.getSpec().getNodeName());
    PodStatus podStatus = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    String podPhase = podStatus.getPhase() == null ? "Pending" : podStatus.getPhase();
    boolean terminating = pod.getMetadata().getDeletionTimestamp() != null;
    next.setPodName(podName);
    next.setNodeName(node);

    Optional<PodAssignment> assignment =
        AssignmentAnnotations.decode(
            node == null ? "" : node,
            pod.getMetadata().getAnnotations() == null
                ? Map.of()
                : pod.getMetadata().getAnnotations(),
            gpuContainers(pod));
    List<SharePodGpuStatus> gpus = new ArrayList<>();
    assignment.ifPresent(
        a -> {
          for (String uuid : a.gpuUuids()) {
            gpus.add(new SharePodGpuStatus(uuid, gpuModels.get(uuid)));
          }
          if (a.memoryMib() > 0) {
            next.setMemoryMiB(a.memoryMib());
          }
        });
    next.setGpus(gpus);
    List<String> uuids = gpus.stream().map(SharePodGpuStatus::getUuid).toList();
    next.setGpuList(uuids.isEmpty() ? null : String.join(",", uuids));
    String onGpus =
        uuids.isEmpty() ? "" : (uuids.size() == 1 ? ", GPU " : ", GPUs ") + String.join(",", uuids);

    Optional<PodCondition> scheduled = podCondition(podStatus, POD_SCHEDULED);
    String scheduledMessage;
    if (node != null) {
      scheduledMessage = "pod " + podName + " is bound to node " + node + onGpus;
      conditions.add(
          stamp.condition(
              SharePodConditions.SCHEDULED,
              TRUE,
              SharePodConditions.REASON_BOUND,
              scheduledMessage));
    } else if (scheduled.isPresent()
        && FALSE.equals(scheduled.get().getStatus())
        && "Unschedulable".equals(scheduled.get().getReason())) {
      String why = scheduled.get().getMessage() == null ? "" : scheduled.get().getMessage();
      scheduledMessage = "pod " + podName + " cannot be scheduled: " + why;
      conditions.add(
          stamp.condition(
              SharePodConditions.SCHEDULED,
              FALSE,
              SharePodConditions.REASON_UNSCHEDULABLE,
              why.isEmpty() ? scheduledMessage : why));
    } else {
      scheduledMessage = "pod " + podName + " waits for the scheduler";
      conditions.add(
          stamp.condition(
              SharePodConditions.SCHEDULED,
              FALSE,
              SharePodConditions.REASON_WAITING_FOR_SCHEDULING,
              scheduledMessage));
    }

    String phase;
    String message;
    Optional<PodCondition> disruption = Preemptions.disruption(pod);
    boolean ended = "Succeeded".equals(podPhase) || "Failed".equals(podPhase);
    if (disruption.isPresent() && (terminating || ended)) {
      // stopped from outside (preempted, evicted, node shutdown): not the workload's end, even
      // when the kubelet reports the stopped pod as Failed or Succeeded; a new pod follows
      phase = SharePodStatus.PHASE_PENDING;
      message =
          stopped(pod, disruption.get(), observed.preemption()) + "; " + afterStop(terminating);
      conditions.add(
          stamp.condition(
              SharePodConditions.READY, FALSE, SharePodConditions.REASON_POD_DELETED, message));
    } else if ("Succeeded".equals(podPhase)) {
      phase = SharePodStatus.PHASE_SUCCEEDED;
      message = "pod " + podName + " completed";
      conditions.add(
          stamp.condition(
              SharePodConditions.READY, FALSE, SharePodConditions.REASON_POD_SUCCEEDED, message));
    } else if ("Failed".equals(podPhase)) {
      phase = SharePodStatus.PHASE_FAILED;
      message = "pod " + podName + " failed" + failure(podStatus);
      conditions.add(
          stamp.condition(
              SharePodConditions.READY, FALSE, SharePodConditions.REASON_POD_FAILED, message));
    } else {
      phase =
          "Running".equals(podPhase)
              ? SharePodStatus.PHASE_RUNNING
              : node != null ? SharePodStatus.PHASE_SCHEDULED : SharePodStatus.PHASE_PENDING;
      Optional<PodCondition> ready = podCondition(podStatus, POD_READY);
      if (terminating) {
        message = "pod " + podName + " is being deleted; a new one is created when it is gone";
        conditions.add(
            stamp.condition(
                SharePodConditions.READY, FALSE, SharePodConditions.REASON_POD_DELETED, message));
      } else if (ready.isPresent() && TRUE.equals(ready.get().getStatus())) {
        message = "pod " + podName + " runs on node " + node + onGpus;
        conditions.add(
            stamp.condition(
                SharePodConditions.READY, TRUE, SharePodConditions.REASON_POD_READY, message));
      } else {
        String waiting = waiting(podStatus);
        message =
            node == null
                ? scheduledMessage
                : "Running".equals(podPhase)
                    ? "pod " + podName + " runs on node " + node + onGpus + ", not ready" + waiting
                    : scheduledMessage + ", waiting for it to start" + waiting;
        conditions.add(
            stamp.condition(
                SharePodConditions.READY,
                FALSE,
                SharePodConditions.REASON_POD_NOT_READY,
                "pod " + podName + " is " + podPhase + waiting));
      }
    }
    next.setPhase(phase);
    next.setMessage(note == null ? message : message + "; " + note);
  }

  /**
   * Returns in words why a disrupted pod stops, e.g. {@code pod p was preempted by higher-priority
   * pod team-b/train on node gpu-1} or {@code pod p was stopped (EvictionByEvictionAPI: Eviction
   * API: evicting)}.
   */
  private static String stopped(Pod pod, PodCondition disruption, @Nullable Preemption preemption) {
    if (preemption != null) {
      return preemption.message();
    }
    Optional<Preemption> unnamed = Preemptions.of(pod, List.of());
    if (unnamed.isPresent()) {
      return unnamed.get().message();
    }
    String why = disruption.getReason() == null ? "" : disruption.getReason();
    if (disruption.getMessage() != null && !disruption.getMessage().isEmpty()) {
      why = why.isEmpty() ? disruption.getMessage() : why + ": " + disruption.getMessage();
    }
    return "pod "
        + pod.getMetadata().getName()
        + " was stopped"
        + (why.isEmpty() ? "" : " (" + why + ")");
  }

  private static String afterStop(boolean terminating) {
    return terminating
        ? "a new pod is created when it is gone"
        : "it is deleted and a new pod is created";
  }

  /** Returns the GPU container of a SharePod's pod: its first container. */
  static List<String> gpuContainers(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return List.of();
    }
    return pod.getSpec().getContainers().stream()
        .limit(1)
        .map(Container::getName)
        .filter(n -> n != null && !n.isEmpty())
        .toList();
  }

  private static String failure(PodStatus status) {
    StringBuilder why = new StringBuilder();
    if (status.getReason() != null) {
      why.append(": ").append(status.getReason());
    }
    if (status.getMessage() != null) {
      why.append(": ").append(status.getMessage());
    }
    for (ContainerStatus c : nonNull(status.getContainerStatuses())) {
      if (c.getState() != null && c.getState().getTerminated() != null) {
        var t = c.getState().getTerminated();
        if (t.getExitCode() != null && t.getExitCode() != 0) {
          why.append(why.length() == 0 ? ": " : "; ")
              .append("container ")
              .append(c.getName())
              .append(" exited with ")
              .append(t.getExitCode())
              .append(t.getReason() == null ? "" : " (" + t.getReason() + ")");
        }
      }
    }
    return why.toString();
  }

  private static String waiting(PodStatus status) {
    for (ContainerStatus c : nonNull(status.getContainerStatuses())) {
      if (c.getState() != null
          && c.getState().getWaiting() != null
          && c.getState().getWaiting().getReason() != null) {
        return " (container " + c.getName() + ": " + c.getState().getWaiting().getReason() + ")";
      }
    }
    return "";
  }

  private static Optional<PodCondition> podCondition(PodStatus status, String type) {
    return nonNull(status.getConditions()).stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  private static SharePodStatus copy(SharePodStatus status) {
    SharePodStatus copy = new SharePodStatus();
    copy.setPhase(status.getPhase());
    copy.setPodName(status.getPodName());
    copy.setNodeName(status.getNodeName());
    copy.setGpus(new ArrayList<>(status.getGpus()));
    copy.setGpuList(status.getGpuList());
    copy.setMemoryMiB(status.getMemoryMiB());
    copy.setObservedGeneration(status.getObservedGeneration());
    copy.setConditions(new ArrayList<>(status.getConditions()));
    copy.setMessage(status.getMessage());
    return copy;
  }

  private static @Nullable String emptyToNull(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static <T> List<T> nonNull(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }

  /** Builds conditions, keeping lastTransitionTime when a condition's status did not change. */
  private record Stamp(List<Condition> previous, @Nullable Long generation, Instant now) {

    Condition condition(String type, String status, String reason, String message) {
      String time =
          previous.stream()
              .filter(c -> type.equals(c.getType()) && status.equals(c.getStatus()))
              .map(Condition::getLastTransitionTime)
              .filter(t -> t != null)
              .findFirst()
              .orElse(DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS)));
      return new ConditionBuilder()
          .withType(type)
          .withStatus(status)
          .withReason(reason)
          .withMessage(message)
          .withObservedGeneration(generation)
          .withLastTransitionTime(time)
          .build();
    }
  }
}
