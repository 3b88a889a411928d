package io.sharegpu.controller.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.sharegpu.api.sharepod.SharePodConditions;
import io.sharegpu.api.sharepod.SharePodStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Returns the Events a status change deserves. Pure: Events follow transitions of the conditions,
 * so reconciling the same state again records nothing new. For example Scheduled going from
 * WaitingForScheduling to Bound gives {@code Normal Scheduled "pod p is bound to node n, GPU g"},
 * and Preempted turning True (or True with new words) gives {@code Warning Preempted "pod p was
 * preempted by higher-priority pod team-b/train on node n"}.
 */
public final class SharePodEvents {

  /** Reason of the Warning Event recorded when the SharePod's pod was preempted. */
  public static final String PREEMPTED = "Preempted";

  private SharePodEvents() {}

  /**
   * Returns the Events for the change from {@code before} (null: no status yet) to {@code after}.
   */
  public static List<SharePodEvent> between(@Nullable SharePodStatus before, SharePodStatus after) {
    List<SharePodEvent> events = new ArrayList<>();
    Optional<Condition> validBefore = condition(before, SharePodConditions.VALID);
    Optional<Condition> validAfter = condition(after, SharePodConditions.VALID);
    if (validAfter.isPresent() && "False".equals(validAfter.get().getStatus())) {
      if (!sameStatusAndMessage(validBefore, validAfter.get())) {
        events.add(SharePodEvent.warning("InvalidSharePod", validAfter.get().getMessage()));
      }
    } else if (validBefore.isPresent()
        && "False".equals(validBefore.get().getStatus())
        && validAfter.isPresent()) {
      events.add(SharePodEvent.normal("Valid", "the SharePod is valid now"));
    }

    Optional<Condition> scheduledBefore = condition(before, SharePodConditions.SCHEDULED);
    Optional<Condition> scheduledAfter = condition(after, SharePodConditions.SCHEDULED);
    if (scheduledAfter.isPresent()) {
      Condition c = scheduledAfter.get();
      String reason = c.getReason();
      boolean newReason = !sameReason(scheduledBefore, c);
      if (SharePodConditions.REASON_BOUND.equals(reason) && newReason) {
        events.add(SharePodEvent.normal("Scheduled", c.getMessage()));
      } else if (SharePodConditions.REASON_UNSCHEDULABLE.equals(reason) && newReason) {
        events.add(SharePodEvent.warning("FailedScheduling", c.getMessage()));
      } else if ((SharePodStatuses.REASON_FAILED_CREATE.equals(reason)
              || SharePodStatuses.REASON_POD_NAME_CONFLICT.equals(reason))
          && !sameStatusAndMessage(scheduledBefore, c)) {
        events.add(SharePodEvent.warning(reason, c.getMessage()));
      }
    }

    Optional<Condition> readyBefore = condition(before, SharePodConditions.READY);
    Optional<Condition> readyAfter = condition(after, SharePodConditions.READY);
    if (readyAfter.isPresent() && !sameReason(readyBefore, readyAfter.get())) {
      Condition c = readyAfter.get();
      if (SharePodConditions.REASON_POD_READY.equals(c.getReason())) {
        events.add(SharePodEvent.normal("Ready", c.getMessage()));
      } else if (SharePodConditions.REASON_POD_SUCCEEDED.equals(c.getReason())) {
        events.add(SharePodEvent.normal("Completed", c.getMessage()));
      } else if (SharePodConditions.REASON_POD_FAILED.equals(c.getReason())) {
        events.add(SharePodEvent.warning("Failed", c.getMessage()));
      }
    }

    Optional<Condition> preemptedAfter = condition(after, SharePodConditions.PREEMPTED);
    if (preemptedAfter.isPresent()
        && "True".equals(preemptedAfter.get().getStatus())
        && !sameStatusAndMessage(
            condition(before, SharePodConditions.PREEMPTED), preemptedAfter.get())) {
      events.add(SharePodEvent.warning(PREEMPTED, preemptedAfter.get().getMessage()));
    }
    return events;
  }

  private static boolean sameReason(Optional<Condition> before, Condition after) {
    return before.isPresent()
        && Objects.equals(before.get().getStatus(), after.getStatus())
        && Objects.equals(before.get().getReason(), after.getReason());
  }

  private static boolean sameStatusAndMessage(Optional<Condition> before, Condition after) {
    return sameReason(before, after)
        && Objects.equals(before.get().getMessage(), after.getMessage());
  }

  private static Optional<Condition> condition(@Nullable SharePodStatus status, String type) {
    if (status == null) {
      return Optional.empty();
    }
    return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
