package io.sharegpu.controller.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.sharegpu.api.sharepod.SharePodStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharePodEventsTest {

  @Test
  void bindingRecordsScheduled() {
    SharePodStatus before =
        status(valid(), c("Scheduled", "False", "WaitingForScheduling", "waits"));
    SharePodStatus after =
        status(valid(), c("Scheduled", "True", "Bound", "pod p is bound to node n"));

    assertThat(SharePodEvents.between(before, after))
        .containsExactly(SharePodEvent.normal("Scheduled", "pod p is bound to node n"));
  }

  @Test
  void theSameStateRecordsNothing() {
    SharePodStatus s = status(valid(), c("Scheduled", "False", "Unschedulable", "0/1 nodes"));

    assertThat(SharePodEvents.between(s, s)).isEmpty();
  }

  @Test
  void unschedulableIsRecordedOnceEvenWhenTheSchedulersCountsChange() {
    SharePodStatus first = status(valid(), c("Scheduled", "False", "Unschedulable", "0/1 nodes"));
    SharePodStatus second = status(valid(), c("Scheduled", "False", "Unschedulable", "0/2 nodes"));

    assertThat(SharePodEvents.between(null, first))
        .containsExactly(SharePodEvent.warning("FailedScheduling", "0/1 nodes"));
    assertThat(SharePodEvents.between(first, second)).isEmpty();
  }

  @Test
  void anInvalidSharePodRecordsAWarningPerNewMessage() {
    SharePodStatus first = status(c("Valid", "False", "InvalidRequest", "bad request"));
    SharePodStatus other = status(c("Valid", "False", "InvalidRequest", "bad limit"));

    assertThat(SharePodEvents.between(null, first))
        .containsExactly(SharePodEvent.warning("InvalidSharePod", "bad request"));
    assertThat(SharePodEvents.between(first, first)).isEmpty();
    assertThat(SharePodEvents.between(first, other))
        .containsExactly(SharePodEvent.warning("InvalidSharePod", "bad limit"));
    assertThat(SharePodEvents.between(first, status(valid())))
        .containsExactly(SharePodEvent.normal("Valid", "the SharePod is valid now"));
  }

  @Test
  void aPreemptionIsAWarningOnceAndAgainOnlyWithNewWords() {
    String generic = "pod p was preempted by a higher-priority pod on node n";
    String named = "pod p was preempted by higher-priority pod team-b/train on node n";
    SharePodStatus running = status(valid(), c("Ready", "True", "PodReady", "ready"));
    SharePodStatus preempted =
        status(valid(), c("Preempted", "True", "PreemptionByScheduler", named));
    SharePodStatus recovered =
        status(valid(), c("Preempted", "False", "NewPodStarted", named + "; the new pod started"));

    assertThat(SharePodEvents.between(running, preempted))
        .containsExactly(SharePodEvent.warning("Preempted", named));
    assertThat(SharePodEvents.between(preempted, preempted)).isEmpty();
    assertThat(
            SharePodEvents.between(
                status(valid(), c("Preempted", "True", "PreemptionByScheduler", generic)),
                preempted))
        .containsExactly(SharePodEvent.warning("Preempted", named));
    assertThat(SharePodEvents.between(preempted, recovered)).isEmpty();
    assertThat(SharePodEvents.between(recovered, preempted))
        .containsExactly(SharePodEvent.warning("Preempted", named));
  }

  @Test
  void completionAndFailureAreRecorded() {
    SharePodStatus running = status(valid(), c("Ready", "True", "PodReady", "ready"));

    assertThat(
            SharePodEvents.between(
                running, status(valid(), c("Ready", "False", "PodSucceeded", "done"))))
        .containsExactly(SharePodEvent.normal("Completed", "done"));
    assertThat(
            SharePodEvents.between(
                running, status(valid(), c("Ready", "False", "PodFailed", "oom"))))
        .containsExactly(SharePodEvent.warning("Failed", "oom"));
  }

  @Test
  void aCreateFailureIsRecordedPerNewMessage() {
    SharePodStatus quota = status(valid(), c("Scheduled", "False", "FailedCreatePod", "quota"));

    assertThat(SharePodEvents.between(null, quota))
        .containsExactly(SharePodEvent.warning("FailedCreatePod", "quota"));
    assertThat(SharePodEvents.between(quota, quota)).isEmpty();
  }

  private static Condition valid() {
    return c("Valid", "True", "Valid", "ok");
  }

  private static Condition c(String type, String status, String reason, String message) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .build();
  }

  private static SharePodStatus status(Condition... conditions) {
    SharePodStatus s = new SharePodStatus();
    s.setConditions(List.of(conditions));
    return s;
  }
}
