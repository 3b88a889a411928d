package io.sharegpu.controller.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PreemptionsTest {

  static final String CONDITION_MESSAGE =
      "sharegpu-scheduler: preempting to accommodate a higher priority pod";

  @Test
  void theSchedulersEventNamesThePreemptorAndTheNode() {
    Pod pod = disrupted(bound("notebook", "uid-1"), "PreemptionByScheduler", CONDITION_MESSAGE);

    Preemption p =
        Preemptions.of(pod, List.of(preempted("uid-1", "team-b", "train", "uid-9", "gpu-1")))
            .orElseThrow();

    assertThat(p).isEqualTo(new Preemption("notebook", "team-b/train", "gpu-1", CONDITION_MESSAGE));
    assertThat(p.named()).isTrue();
    assertThat(p.message())
        .isEqualTo("pod notebook was preempted by higher-priority pod team-b/train on node gpu-1");
  }

  @Test
  void withoutTheEventThePreemptionIsReportedWithTheSchedulersWords() {
    Pod pod = disrupted(bound("notebook", "uid-1"), "PreemptionByScheduler", CONDITION_MESSAGE);
    Event aboutAnotherPod = preempted("uid-0", "team-b", "train", "uid-9", "gpu-1");

    Preemption p = Preemptions.of(pod, List.of(aboutAnotherPod)).orElseThrow();

    assertThat(p.named()).isFalse();
    assertThat(p.message())
        .isEqualTo(
            "pod notebook was preempted by a higher-priority pod on node gpu-1 ("
                + CONDITION_MESSAGE
                + ")");
  }

  @Test
  void anEventWithoutARelatedObjectNamesThePreemptorsUid() {
    Pod pod = disrupted(bound("notebook", "uid-1"), "PreemptionByScheduler", CONDITION_MESSAGE);
    Event event =
        new EventBuilder(preempted("uid-1", "team-b", "train", "uid-9", "gpu-1"))
            .withRelated(null)
            .build();

    assertThat(Preemptions.of(pod, List.of(event)).orElseThrow().message())
        .isEqualTo(
            "pod notebook was preempted by higher-priority pod with UID uid-9 on node gpu-1");
  }

  @Test
  void otherDisruptionsAreNoPreemption() {
    Pod evicted =
        disrupted(bound("notebook", "uid-1"), "EvictionByEvictionAPI", "Eviction API: evicting");

    assertThat(Preemptions.disrupted(evicted)).isTrue();
    assertThat(Preemptions.of(evicted, List.of())).isEmpty();
    assertThat(Preemptions.of(bound("notebook", "uid-1"), List.of())).isEmpty();
    assertThat(Preemptions.disrupted(bound("notebook", "uid-1"))).isFalse();
  }

  @Test
  void waitsForTheEventAFewSecondsAfterTheCondition() {
    Pod pod = disrupted(bound("notebook", "uid-1"), "PreemptionByScheduler", CONDITION_MESSAGE);
    Instant at = Instant.parse("2026-12-03T05:00:00Z"); // the condition's lastTransitionTime

    assertThat(Preemptions.eventWait(pod, at.plusMillis(2500))).contains(Duration.ofMillis(2500));
    assertThat(Preemptions.eventWait(pod, at.plusSeconds(5))).isEmpty();
    assertThat(Preemptions.eventWait(pod, at.plusSeconds(60))).isEmpty();
    // our clock far behind the API server's: do not wait for ever
    assertThat(Preemptions.eventWait(pod, at.minusSeconds(60))).isEmpty();
  }

  @Test
  void aSuccessorStartedOnceItRunsOrRanAndIsNotBeingStopped() {
    Pod pending = bound("notebook", "uid-2");
    Pod running = phase(pending, "Running");

    assertThat(Preemptions.started(pending)).isFalse();
    assertThat(Preemptions.started(running)).isTrue();
    assertThat(Preemptions.started(phase(pending, "Failed"))).isTrue();
    assertThat(Preemptions.started(disrupted(running, "PreemptionByScheduler", "x"))).isFalse();
    assertThat(
            Preemptions.started(
                new PodBuilder(running)
                    .editMetadata()
                    .withDeletionTimestamp("2026-12-03T05:00:00Z")
                    .endMetadata()
                    .build()))
        .isFalse();
  }

  static Pod bound(String name, String uid) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team-a")
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .withNodeName("gpu-1")
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  static Pod phase(Pod pod, String phase) {
    return new PodBuilder(pod).editStatus().withPhase(phase).endStatus().build();
  }

  /** The condition kube-scheduler (or another disruptor) puts on a pod it is about to delete. */
  static Pod disrupted(Pod pod, String reason, String message) {
    return new PodBuilder(pod)
        .editOrNewStatus()
        .addToConditions(
            new PodConditionBuilder()
                .withType("DisruptionTarget")
                .withStatus("True")
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime("2026-12-03T05:00:00Z")
                .build())
        .endStatus()
        .build();
  }

  /** kube-scheduler's Event about a victim, as the core/v1 API shows it. */
  static Event preempted(
      String victimUid, String namespace, String preemptor, String preemptorUid, String node) {
    return new EventBuilder()
        .withNewMetadata()
        .withName("notebook.18a0")
        .withNamespace("team-a")
        .endMetadata()
        .withNewInvolvedObject()
        .withKind("Pod")
        .withApiVersion("v1")
        .withNamespace("team-a")
        .withName("notebook")
        .withUid(victimUid)
        .endInvolvedObject()
        .withNewRelated()
        .withKind("Pod")
        .withApiVersion("v1")
        .withNamespace(namespace)
        .withName(preemptor)
        .withUid(preemptorUid)
        .endRelated()
        .withType("Normal")
        .withReason("Preempted")
        .withAction("Preempting")
        .withMessage("Preempted by pod " + preemptorUid + " on node " + node)
        .build();
  }
}
