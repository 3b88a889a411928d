package io.sharegpu.webhook.admission;

import static io.sharegpu.webhook.admission.TestPods.gpuPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** GPU pods of a node pool served by another ShareGPU release name that release's scheduler. */
class PartitionSchedulersTest {

  private final PodAdmissionPolicy policy =
      new PodAdmissionPolicy(
          "sharegpu-scheduler", true, Set.of(), Set.of("sharegpu-scheduler-b300"));

  private static Pod naming(String scheduler) {
    return new PodBuilder(gpuPod("250").build())
        .editSpec()
        .withSchedulerName(scheduler)
        .endSpec()
        .build();
  }

  @Test
  void aPodNamingAPartitionSchedulerIsAdmittedAndKeepsItsScheduler() {
    AdmissionDecision decision = policy.decide(naming("sharegpu-scheduler-b300"));
    assertThat(decision).isInstanceOf(AdmissionDecision.Patched.class);
    assertThat(((AdmissionDecision.Patched) decision).patch())
        .noneMatch(op -> op.path().equals("/spec/schedulerName"));
  }

  @Test
  void aPodLeftAtTheDefaultSchedulerStillGoesToThisReleasesScheduler() {
    AdmissionDecision decision = policy.decide(naming("default-scheduler"));
    assertThat(((AdmissionDecision.Patched) decision).patch())
        .anyMatch(
            op ->
                op.path().equals("/spec/schedulerName") && "sharegpu-scheduler".equals(op.value()));
  }

  @Test
  void anyOtherSchedulerIsDeniedNamingEveryShareGpuScheduler() {
    AdmissionDecision decision = policy.decide(naming("volcano"));
    assertThat(decision).isInstanceOf(AdmissionDecision.Denied.class);
    assertThat(((AdmissionDecision.Denied) decision).reasons())
        .contains(
            "spec.schedulerName is \"volcano\", but only \"sharegpu-scheduler\","
                + " \"sharegpu-scheduler-b300\" assigns GPUs to pods requesting sharegpu.io"
                + " resources; set it to \"sharegpu-scheduler\" or leave it empty");
    // without partitions, the same pod is denied as before
    assertThat(PodAdmissionPolicy.withDefaults().decide(naming("sharegpu-scheduler-b300")))
        .isInstanceOf(AdmissionDecision.Denied.class);
  }

  @Test
  void theDefaultSchedulerCannotBeAPartition() {
    assertThatThrownBy(
            () ->
                new PodAdmissionPolicy(
                    "sharegpu-scheduler", true, Set.of(), Set.of("default-scheduler")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
