package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.extender.e2e.ParityScenario.Choice;
import io.sharegpu.extender.e2e.ParityScenario.NodeSpec;
import io.sharegpu.extender.e2e.ParityScenario.Step;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Checks, without a cluster, that {@link PolicyParityE2E}'s scenario can tell a difference: the
 * policy's best node is unique at every step (kube-scheduler breaks ties at random, the replay
 * takes the first node), kube-scheduler's own filters never remove a node (host CPU always fits),
 * and other policies place the same pods differently.
 */
class ParityScenarioTest {

  private static final String NS = "parity";

  static List<GPUNode> gpuNodes() {
    return ParityScenario.NODES.stream()
        .map(n -> ParityScenario.gpuNode(n, "2026-12-01T00:00:00Z"))
        .toList();
  }

  static List<Pod> existing() {
    return ParityScenario.EXISTING.stream()
        .map(e -> withUid(ParityScenario.existingPod(e, NS, ShareGpuAnnotations.SCHEDULER_NAME)))
        .toList();
  }

  static List<Pod> sequence() {
    return ParityScenario.PODS.stream()
        .map(p -> withUid(ParityScenario.newPod(p, NS, ShareGpuAnnotations.SCHEDULER_NAME)))
        .toList();
  }

  private static Pod withUid(Pod p) {
    p.getMetadata().setUid("uid-" + p.getMetadata().getName());
    return p;
  }

  private static List<Step> replay(String policy) {
    return ParityScenario.replay(policy, gpuNodes(), existing(), sequence());
  }

  @Test
  void theDefaultPolicysBestNodeIsUniqueAtEveryStep() {
    List<Step> steps = replay("sharegpu");
    assertThat(steps).hasSize(ParityScenario.PODS.size());
    int contested = 0;
    for (Step s : steps) {
      assertThat(s.choice().node()).as(s.choice().pod() + " is placed").isNotEmpty();
      if (s.feasible() < 2) {
        continue;
      }
      contested++;
      List<String> top =
          s.scores().entrySet().stream()
              .filter(e -> e.getValue() == 10)
              .map(e -> e.getKey())
              .toList();
      assertThat(top).as(s.choice() + " scores " + s.scores()).containsExactly(s.choice().node());
    }
    // most pods have a real choice between several nodes
    assertThat(contested).isGreaterThanOrEqualTo(ParityScenario.PODS.size() - 4);
    // the pods spread over several nodes: a packing-only or a spreading-only answer would not do
    assertThat(steps.stream().map(s -> s.choice().node()).distinct().count())
        .isGreaterThanOrEqualTo(3);
  }

  @Test
  void hostCpuNeverStopsKubeSchedulerFromOfferingANode() {
    Map<String, Long> cpu = ParityScenario.cpuRequested(replay("sharegpu"));
    for (NodeSpec n : ParityScenario.NODES) {
      assertThat(cpu.getOrDefault(n.name(), 0L))
          .as("CPU requested on " + n.name())
          .isLessThanOrEqualTo(n.cpuCores() * 1000L - 1000);
    }
  }

  @Test
  void otherPoliciesChooseDifferently() {
    List<Choice> ours = replay("sharegpu").stream().map(Step::choice).toList();
    for (String other : List.of("binpack", "spread", "bestfit")) {
      List<Choice> theirs = replay(other).stream().map(Step::choice).toList();
      assertThat(theirs).as(other).isNotEqualTo(ours);
    }
  }
}
