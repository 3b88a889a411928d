package io.sharegpu.controller.model;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads disruptions and preemptions off a pod and the scheduler's Events. Pure.
 *
 * <p>When kube-scheduler preempts a victim it (1) sets the pod condition {@code
 * DisruptionTarget=True}, reason {@code PreemptionByScheduler}, message {@code <schedulerName>:
 * preempting to accommodate a higher priority pod}, (2) deletes the pod and (3) records an Event
 * about it, reason {@code Preempted}, {@code related} = the preemptor, message {@code Preempted by
 * pod <preemptor UID> on node <node>} (kube-scheduler v1.34 {@code
 * pkg/scheduler/framework/preemption/preemption.go}). Other components set DisruptionTarget with
 * other reasons (the eviction API, the taint manager, the kubelet's node-pressure eviction and
 * graceful node shutdown, pod garbage collection): the pod is stopped for reasons outside it.
 */
public final class Preemptions {

  /** The pod condition type set on a pod about to be stopped for reasons outside it. */
  public static final String DISRUPTION_TARGET = "DisruptionTarget";

  /** The DisruptionTarget reason kube-scheduler sets on a preemption victim. */
  public static final String PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler";

  /** The reason of kube-scheduler's Event about a preemption victim. */
  public static final String PREEMPTED_EVENT = "Preempted";

  /**
   * How long after the DisruptionTarget condition the controller waits for the scheduler's Event
   * (which is recorded after the deletion) before it reports a preemption without its preemptor.
   */
  public static final Duration EVENT_WAIT = Duration.ofSeconds(5);

  private static final Pattern EVENT_MESSAGE =
      Pattern.compile("^Preempted by pod (?<uid>\\S+) on node (?<node>\\S+)$");

  private Preemptions() {}

  /** Returns the pod's DisruptionTarget=True condition, any reason. */
  public static Optional<PodCondition> disruption(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> DISRUPTION_TARGET.equals(c.getType()) && "True".equals(c.getStatus()))
        .findFirst();
  }

  /** Returns true when the pod is being stopped for reasons outside it (DisruptionTarget=True). */
  public static boolean disrupted(Pod pod) {
    return disruption(pod).isPresent();
  }

  /**
   * Returns true for a pod that started (it runs, or ran to its end) and is not being stopped: the
   * successor of a disrupted pod that took its place.
   */
  public static boolean started(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return pod.getMetadata().getDeletionTimestamp() == null
        && !disrupted(pod)
        && ("Running".equals(phase) || "Succeeded".equals(phase) || "Failed".equals(phase));
  }

  /**
   * Returns the preemption of {@code pod}, naming the preemptor when one of {@code events} (any
   * Events; those that are not the scheduler's Preempted Event about this pod are ignored) tells
   * it; empty when kube-scheduler did not preempt the pod.
   *
   * <p>Example: condition DisruptionTarget=True/PreemptionByScheduler and the Event {@code
   * Preempted "Preempted by pod 6f1c... on node gpu-1"} related to pod team-b/train give {@code
   * Preemption(notebook, team-b/train, gpu-1, ...)}.
   */
  public static Optional<Preemption> of(Pod pod, Collection<Event> events) {
    Optional<PodCondition> condition =
        disruption(pod).filter(c -> PREEMPTION_BY_SCHEDULER.equals(c.getReason()));
    if (condition.isEmpty()) {
      return Optional.empty();
    }
    String name = pod.getMetadata().getName();
    String podNode = pod.getSpec() == null ? null : emptyToNull(pod.getSpec().getNodeName());
    String detail = emptyToNull(condition.get().getMessage());
    List<Event> about = events.stream().filter(e -> isPreemptedEventAbout(e, pod)).toList();
    for (int i = about.size() - 1; i >= 0; i--) {
      Event event = about.get(i);
      Matcher m = EVENT_MESSAGE.matcher(event.getMessage() == null ? "" : event.getMessage());
      boolean parsed = m.matches();
      String preemptor = preemptor(event.getRelated());
      if (preemptor == null && parsed) {
        preemptor = "with UID " + m.group("uid");
      }
      if (preemptor != null) {
        String node = podNode != null ? podNode : parsed ? m.group("node") : null;
        return Optional.of(new Preemption(name, preemptor, node, detail));
      }
    }
    return Optional.of(new Preemption(name, null, podNode, detail));
  }

  /**
   * Returns how much longer to wait for the scheduler's Event about a preempted pod before
   * reporting the preemption without it: {@link #EVENT_WAIT} after the DisruptionTarget condition's
   * {@code lastTransitionTime} (API server clock, whole seconds). Empty when the wait is over, the
   * time is unknown, or the clocks disagree by more than that.
   *
   * <p>Example: condition at 10:00:00, now 10:00:02.5 → 2.5 s; now 10:00:06 → empty.
   */
  public static Optional<Duration> eventWait(Pod pod, Instant now) {
    Optional<PodCondition> condition = disruption(pod);
    if (condition.isEmpty() || condition.get().getLastTransitionTime() == null) {
      return Optional.empty();
    }
    Instant since;
    try {
      since = Instant.parse(condition.get().getLastTransitionTime());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
    Duration left = Duration.between(now, since.plus(EVENT_WAIT));
    if (left.isNegative() || left.isZero() || left.compareTo(EVENT_WAIT.multipliedBy(2)) > 0) {
      return Optional.empty();
    }
    return Optional.of(left);
  }

  /**
   * Returns true for kube-scheduler's Preempted Event about {@code pod}: the Event's object has the
   * pod's UID (a pod of the same name before it had another one).
   */
  public static boolean isPreemptedEventAbout(Event event, Pod pod) {
    ObjectReference about = event.getInvolvedObject();
    String uid = pod.getMetadata().getUid();
    return PREEMPTED_EVENT.equals(event.getReason())
        && about != null
        && (about.getKind() == null || "Pod".equals(about.getKind()))
        && uid != null
        && uid.equals(about.getUid());
  }

  private static @Nullable String preemptor(@Nullable ObjectReference related) {
    if (related == null || related.getName() == null || related.getName().isEmpty()) {
      return null;
    }
    return related.getNamespace() == null || related.getNamespace().isEmpty()
        ? related.getName()
        : related.getNamespace() + "/" + related.getName();
  }

  private static @Nullable String emptyToNull(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
