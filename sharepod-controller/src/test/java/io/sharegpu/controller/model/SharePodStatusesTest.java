package io.sharegpu.controller.model;

import static io.sharegpu.controller.model.SharePods.SETTINGS;
import static io.sharegpu.controller.model.SharePods.aSharePod;
import static io.sharegpu.controller.model.SharePods.q;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodGpuStatus;
import io.sharegpu.api.sharepod.SharePodStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharePodStatusesTest {

  private static final Instant T0 = Instant.parse("2026-12-03T05:00:00Z");
  private static final Instant T1 = Instant.parse("2026-12-03T05:01:00Z");
  private static final String GPU = "GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64";

  private final SharePod sp =
      aSharePod(
          "notebook",
          "0.25",
          g -> {
            g.setLimit(q("0.5"));
            g.setMemory(q("10Gi"));
          });

  @Test
  void aFreshPodWaitsForTheScheduler() {
    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(created()), T0);

    assertThat(status.getPhase()).isEqualTo("Pending");
    assertThat(status.getPodName()).isEqualTo("notebook");
    assertThat(status.getNodeName()).isNull();
    assertThat(status.getGpus()).isEmpty();
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
    assertThat(condition(status, "Valid")).extracting(Condition::getStatus).isEqualTo("True");
    assertThat(condition(status, "Scheduled"))
        .extracting(Condition::getStatus, Condition::getReason)
        .containsExactly("False", "WaitingForScheduling");
    assertThat(condition(status, "Ready").getReason()).isEqualTo("PodNotReady");
    assertThat(condition(status, "Ready").getLastTransitionTime())
        .isEqualTo("2026-12-03T05:00:00Z");
  }

  @Test
  void anUnschedulablePodReportsTheSchedulersReason() {
    String why = "0/2 nodes are available: 2 Insufficient sharegpu.io/gpu-milli.";
    Pod pod =
        new PodBuilder(created())
            .editOrNewStatus()
            .withPhase("Pending")
            .addToConditions(
                new PodConditionBuilder()
                    .withType("PodScheduled")
                    .withStatus("False")
                    .withReason("Unschedulable")
                    .withMessage(why)
                    .build())
            .endStatus()
            .build();

    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(pod), T0);

    assertThat(status.getPhase()).isEqualTo("Pending");
    assertThat(status.getMessage()).isEqualTo("pod notebook cannot be scheduled: " + why);
    assertThat(condition(status, "Scheduled"))
        .extracting(Condition::getStatus, Condition::getReason, Condition::getMessage)
        .containsExactly("False", "Unschedulable", why);
  }

  @Test
  void aBoundPodShowsNodeGpusWithModelAndMemory() {
    SharePodStatus status =
        SharePodStatuses.nextStatus(
            sp,
            Observation.ofPod(bound(created()), List.of(), Map.of(GPU, "NVIDIA H100 80GB HBM3")),
            T0);

    assertThat(status.getPhase()).isEqualTo("Scheduled");
    assertThat(status.getNodeName()).isEqualTo("gpu-node-1");
    assertThat(status.getGpus())
        .extracting(SharePodGpuStatus::getUuid, SharePodGpuStatus::getModel)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(GPU, "NVIDIA H100 80GB HBM3"));
    assertThat(status.getGpuList()).isEqualTo(GPU);
    assertThat(status.getMemoryMiB()).isEqualTo(10240L);
    assertThat(condition(status, "Scheduled"))
        .extracting(Condition::getStatus, Condition::getReason, Condition::getMessage)
        .containsExactly("True", "Bound", "pod notebook is bound to node gpu-node-1, GPU " + GPU);
  }

  @Test
  void aGpuOfAnUnknownNodeHasNoModel() {
    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(bound(created())), T0);

    assertThat(status.getGpus()).singleElement().extracting(SharePodGpuStatus::getModel).isNull();
  }

  @Test
  void aReadyPodIsRunningAndReady() {
    Pod pod = running(bound(created()), true);

    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(pod), T0);

    assertThat(status.getPhase()).isEqualTo("Running");
    assertThat(condition(status, "Ready"))
        .extracting(Condition::getStatus, Condition::getReason)
        .containsExactly("True", "PodReady");
    assertThat(status.getMessage()).isEqualTo("pod notebook runs on node gpu-node-1, GPU " + GPU);
  }

  @Test
  void aNoteIsAddedToTheMessage() {
    SharePodStatus status =
        SharePodStatuses.nextStatus(
            sp, withPod(running(bound(created()), true)).withNote("spec.gpu changed"), T0);

    assertThat(status.getMessage())
        .isEqualTo("pod notebook runs on node gpu-node-1, GPU " + GPU + "; spec.gpu changed");
  }

  @Test
  void keepsTheTransitionTimeOfAnUnchangedCondition() {
    sp.setStatus(SharePodStatuses.nextStatus(sp, withPod(bound(created())), T0));

    SharePodStatus later =
        SharePodStatuses.nextStatus(sp, withPod(running(bound(created()), true)), T1);

    assertThat(condition(later, "Scheduled").getLastTransitionTime())
        .isEqualTo("2026-12-03T05:00:00Z");
    assertThat(condition(later, "Ready").getLastTransitionTime()).isEqualTo("2026-12-03T05:01:00Z");
  }

  @Test
  void aSucceededPodMakesTheStatusFinalEvenAfterThePodIsGone() {
    Pod done =
        new PodBuilder(bound(created()))
            .editOrNewStatus()
            .withPhase("Succeeded")
            .endStatus()
            .build();
    sp.setStatus(SharePodStatuses.nextStatus(sp, withPod(done), T0));
    assertThat(sp.getStatus().getPhase()).isEqualTo("Succeeded");
    assertThat(SharePodStatuses.isFinal(sp.getStatus())).isTrue();

    SharePodStatus afterDeletion = SharePodStatuses.nextStatus(sp, Observation.noPod(), T1);

    assertThat(afterDeletion.getPhase()).isEqualTo("Succeeded");
    assertThat(afterDeletion.getNodeName()).isEqualTo("gpu-node-1");
    assertThat(afterDeletion.getGpuList()).isEqualTo(GPU);
    assertThat(condition(afterDeletion, "Ready").getReason()).isEqualTo("PodSucceeded");
  }

  @Test
  void aFailedPodSaysWhy() {
    Pod failed =
        new PodBuilder(bound(created()))
            .editOrNewStatus()
            .withPhase("Failed")
            .withReason("Evicted")
            .withMessage("The node was low on resource: memory.")
            .endStatus()
            .build();

    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(failed), T0);

    assertThat(status.getPhase()).isEqualTo("Failed");
    assertThat(status.getMessage())
        .isEqualTo("pod notebook failed: Evicted: The node was low on resource: memory.");
    assertThat(condition(status, "Ready").getReason()).isEqualTo("PodFailed");
  }

  @Test
  void aFailedPodWithoutDisruptionIsFinal() {
    Pod failed =
        new PodBuilder(running(bound(created()), false))
            .editOrNewStatus()
            .withPhase("Failed")
            .endStatus()
            .build();

    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(failed), T0);

    assertThat(status.getPhase()).isEqualTo("Failed");
    assertThat(SharePodStatuses.isFinal(status)).isTrue();
    assertThat(status.getConditions()).noneMatch(c -> c.getType().equals("Preempted"));
  }

  @Test
  void aPreemptedPodBeingDeletedMakesPreemptedTrueNamingThePreemptorAndIsPendingNotFinal() {
    Pod victim = preempted(terminating(running(bound(created()), true)));
    Preemption preemption =
        Preemptions.of(
                victim,
                List.of(PreemptionsTest.preempted("uid-pod", "team-b", "train", "uid-9", "x")))
            .orElseThrow();

    SharePodStatus status =
        SharePodStatuses.nextStatus(sp, withPod(victim).withPreemption(preemption), T0);

    String words =
        "pod notebook was preempted by higher-priority pod team-b/train on node gpu-node-1";
    assertThat(condition(status, "Preempted"))
        .extracting(
            Condition::getStatus,
            Condition::getReason,
            Condition::getMessage,
            Condition::getLastTransitionTime)
        .containsExactly("True", "PreemptionByScheduler", words, "2026-12-03T05:00:00Z");
    assertThat(status.getPhase()).isEqualTo("Pending");
    assertThat(SharePodStatuses.isFinal(status)).isFalse();
    assertThat(status.getMessage()).isEqualTo(words + "; a new pod is created when it is gone");
    assertThat(condition(status, "Ready").getReason()).isEqualTo("PodDeleted");
    assertThat(SharePodEvents.between(null, status))
        .contains(SharePodEvent.warning("Preempted", words));
  }

  @Test
  void aPreemptedPodTheKubeletFailedIsNotFinal() {
    Pod failed =
        new PodBuilder(preempted(terminating(running(bound(created()), false))))
            .editStatus()
            .withPhase("Failed")
            .endStatus()
            .build();

    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(failed), T0);

    assertThat(status.getPhase()).isEqualTo("Pending");
    assertThat(SharePodStatuses.isFinal(status)).isFalse();
    assertThat(condition(status, "Ready").getReason()).isEqualTo("PodDeleted");
    // without the scheduler's Event (the reconciler passes no preemption): no condition yet
    assertThat(status.getConditions()).noneMatch(c -> c.getType().equals("Preempted"));
  }

  @Test
  void anyDisruptionMakesAFailedOrSucceededPodNotFinal() {
    for (String phase : List.of("Failed", "Succeeded")) {
      Pod evicted =
          new PodBuilder(
                  PreemptionsTest.disrupted(
                      running(bound(created()), false),
                      "TerminationByKubelet",
                      "The node was low on resource: memory."))
              .editStatus()
              .withPhase(phase)
              .endStatus()
              .build();

      SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(evicted), T0);

      assertThat(status.getPhase()).as(phase).isEqualTo("Pending");
      assertThat(SharePodStatuses.isFinal(status)).isFalse();
      assertThat(status.getMessage())
          .isEqualTo(
              "pod notebook was stopped (TerminationByKubelet: The node was low on resource:"
                  + " memory.); it is deleted and a new pod is created");
      assertThat(status.getConditions()).noneMatch(c -> c.getType().equals("Preempted"));
    }
  }

  @Test
  void preemptedStaysTrueWhileTheNewPodWaitsAndTurnsFalseOnceItRuns() {
    Pod victim = preempted(terminating(running(bound(created()), true)));
    Preemption preemption = new Preemption("notebook", "team-b/train", "gpu-node-1", null);
    sp.setStatus(SharePodStatuses.nextStatus(sp, withPod(victim).withPreemption(preemption), T0));
    String words = preemption.message();

    // gone, then a new pod that waits for GPUs
    sp.setStatus(SharePodStatuses.nextStatus(sp, Observation.noPod(), T1));
    assertThat(condition(sp.getStatus(), "Preempted").getMessage()).isEqualTo(words);
    Pod next = new PodBuilder(created()).editMetadata().withUid("uid-pod-2").endMetadata().build();
    sp.setStatus(SharePodStatuses.nextStatus(sp, withPod(next), T1));
    assertThat(sp.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(condition(sp.getStatus(), "Preempted"))
        .extracting(Condition::getStatus, Condition::getMessage, Condition::getLastTransitionTime)
        .containsExactly("True", words, "2026-12-03T05:00:00Z");
    sp.setStatus(SharePodStatuses.nextStatus(sp, withPod(bound(next)), T1));
    assertThat(condition(sp.getStatus(), "Preempted").getStatus()).isEqualTo("True");

    SharePodStatus runs = SharePodStatuses.nextStatus(sp, withPod(running(bound(next), true)), T1);

    assertThat(runs.getPhase()).isEqualTo("Running");
    assertThat(condition(runs, "Preempted"))
        .extracting(
            Condition::getStatus,
            Condition::getReason,
            Condition::getMessage,
            Condition::getLastTransitionTime)
        .containsExactly(
            "False", "NewPodStarted", words + "; the new pod started", "2026-12-03T05:01:00Z");
    sp.setStatus(runs);
    assertThat(SharePodStatuses.nextStatus(sp, withPod(running(bound(next), true)), T1))
        .usingRecursiveComparison()
        .isEqualTo(runs);
  }

  static Pod preempted(Pod pod) {
    return PreemptionsTest.disrupted(
        new PodBuilder(pod).editMetadata().withUid("uid-pod").endMetadata().build(),
        "PreemptionByScheduler",
        PreemptionsTest.CONDITION_MESSAGE);
  }

  static Pod terminating(Pod pod) {
    return new PodBuilder(pod)
        .editMetadata()
        .withDeletionTimestamp("2026-12-03T05:00:30Z")
        .endMetadata()
        .build();
  }

  @Test
  void aTerminatingPodIsReportedAsBeingDeleted() {
    Pod pod =
        new PodBuilder(running(bound(created()), true))
            .editMetadata()
            .withDeletionTimestamp("2026-12-03T05:00:00Z")
            .endMetadata()
            .build();

    SharePodStatus status = SharePodStatuses.nextStatus(sp, withPod(pod), T0);

    assertThat(condition(status, "Ready").getReason()).isEqualTo("PodDeleted");
    assertThat(status.getMessage()).contains("is being deleted");
  }

  @Test
  void anInvalidSharePodIsPendingWithAValidFalseCondition() {
    SharePodStatus status =
        SharePodStatuses.nextStatus(
            sp, Observation.invalid(List.of("spec.gpu.request \"1.5\" is bad")), T0);

    assertThat(status.getPhase()).isEqualTo("Pending");
    assertThat(status.getPodName()).isNull();
    assertThat(status.getMessage())
        .isEqualTo("invalid SharePod, no pod created: spec.gpu.request \"1.5\" is bad");
    assertThat(condition(status, "Valid"))
        .extracting(Condition::getStatus, Condition::getReason, Condition::getMessage)
        .containsExactly("False", "InvalidRequest", "spec.gpu.request \"1.5\" is bad");
    assertThat(condition(status, "Scheduled").getReason()).isEqualTo("InvalidRequest");
  }

  @Test
  void aCreateFailureIsReportedWithItsReason() {
    SharePodStatus status =
        SharePodStatuses.nextStatus(
            sp,
            Observation.problem(
                SharePodStatuses.REASON_FAILED_CREATE,
                "creating pod notebook failed: exceeded quota"),
            T0);

    assertThat(status.getMessage()).isEqualTo("creating pod notebook failed: exceeded quota");
    assertThat(condition(status, "Scheduled").getReason()).isEqualTo("FailedCreatePod");
  }

  @Test
  void theSameObservationGivesTheSameStatus() {
    sp.setStatus(SharePodStatuses.nextStatus(sp, withPod(bound(created())), T0));

    SharePodStatus again = SharePodStatuses.nextStatus(sp, withPod(bound(created())), T1);

    assertThat(again).usingRecursiveComparison().isEqualTo(sp.getStatus());
  }

  static Observation withPod(Pod pod) {
    return Observation.ofPod(pod, List.of(), Map.of());
  }

  Pod created() {
    return ((DesiredPod.Valid) SharePodPods.desiredPod(sp, SETTINGS)).pod();
  }

  static Pod bound(Pod pod) {
    PodAssignment assignment =
        new PodAssignment(
            "gpu-node-1", List.of(new ContainerAssignment("main", List.of(GPU), 10240, 500)));
    return new PodBuilder(pod)
        .editMetadata()
        .addToAnnotations(AssignmentAnnotations.encode(assignment, T0))
        .endMetadata()
        .editSpec()
        .withNodeName("gpu-node-1")
        .endSpec()
        .editOrNewStatus()
        .withPhase("Pending")
        .addToConditions(
            new PodConditionBuilder().withType("PodScheduled").withStatus("True").build())
        .endStatus()
        .build();
  }

  static Pod running(Pod pod, boolean ready) {
    return new PodBuilder(pod)
        .editOrNewStatus()
        .withPhase("Running")
        .addToConditions(
            new PodConditionBuilder()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .build())
        .endStatus()
        .build();
  }

  static Condition condition(SharePodStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }
}
