package io.sharegpu.extender.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The prioritize answer keeps the policy's choice through kube-scheduler's scoring: with the
 * example configuration's weight, the policy's best node has a strictly higher final score than
 * every other node whatever the default resource plugins add.
 */
class PriorityMappingTest {

  /** The most that NodeResourcesFit, NodeResourcesBalancedAllocation and ImageLocality add. */
  private static final int RESOURCE_PLUGINS_MAX = 3 * 100;

  private static final String[] MODELS = {
    "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA L4", "Tesla T4"
  };
  private static final long[] MEMORY = {81559, 40960, 23034, 15360};

  /** {@code weight} of the extender in examples/scheduler-config.yaml. */
  static int exampleWeight() throws IOException {
    String yaml =
        Files.readString(TestCluster.repoRoot().resolve("examples/scheduler-config.yaml"));
    Matcher m = Pattern.compile("(?m)^\\s*weight:\\s*(\\d+)\\s*$").matcher(yaml);
    assertThat(m.find()).as("examples/scheduler-config.yaml has an extender weight").isTrue();
    return Integer.parseInt(m.group(1));
  }

  /** kube-scheduler's contribution of an extender score. */
  private static long fromExtender(int score, int weight) {
    return (long) score * weight * 10;
  }

  @Test
  void keepsTheBestAtTenAndTheOrderOfTheOthersWithinOneToThree() {
    assertThat(PriorityMapping.toExtenderScore(10)).isEqualTo(10);
    assertThat(PriorityMapping.toExtenderScore(0)).isZero();
    assertThat(PriorityMapping.toExtenderScore(-1)).isZero();
    assertThat(PriorityMapping.toExtenderScore(11)).isEqualTo(10);
    int previous = 0;
    for (int s = 1; s <= 9; s++) {
      int mapped = PriorityMapping.toExtenderScore(s);
      assertThat(mapped).as("score " + s).isBetween(1, PriorityMapping.RUNNER_UP_MAX);
      assertThat(mapped).as("order at " + s).isGreaterThanOrEqualTo(previous);
      previous = mapped;
    }
    assertThat(PriorityMapping.toExtenderScore(1)).isEqualTo(1);
    assertThat(PriorityMapping.toExtenderScore(9)).isEqualTo(PriorityMapping.RUNNER_UP_MAX);
  }

  @Test
  void theBestLeadsByMoreThanTheResourcePluginsCanAddWithTheExampleWeight() throws IOException {
    int weight = exampleWeight();
    long best = fromExtender(PriorityMapping.toExtenderScore(10), weight);
    for (int s = 0; s <= 9; s++) {
      long other = fromExtender(PriorityMapping.toExtenderScore(s), weight);
      assertThat(best).as("core score " + s).isGreaterThan(other + RESOURCE_PLUGINS_MAX);
    }
    // core's scores as they are: a runner-up at 8 trails by two weight steps only
    assertThat(fromExtender(10, weight))
        .as("unmapped, the resource plugins could overrule the policy")
        .isLessThan(fromExtender(8, weight) + RESOURCE_PLUGINS_MAX);
  }

  /**
   * kube-scheduler's choice over random clusters under the sharegpu policy, each node given
   * arbitrary resource plugin scores: always the node {@code Placement.place} takes.
   */
  @Test
  void kubeSchedulerPicksThePolicysChoiceOnRandomClusters() throws IOException {
    int weight = exampleWeight();
    Random random = new Random(7);
    int checked = 0;
    for (int round = 0; round < 200; round++) {
      PlacementPolicy policy = PlacementPolicies.byName("sharegpu", 1L);
      Ledger ledger = new Ledger();
      int nodes = 3 + random.nextInt(8);
      for (int n = 0; n < nodes; n++) {
        int m = random.nextInt(MODELS.length);
        List<Gpu> gpus = new ArrayList<>();
        int count = 1 + random.nextInt(8);
        for (int g = 0; g < count; g++) {
          gpus.add(new Gpu("GPU-" + n + "-" + g, g, MODELS[m], MEMORY[m], 1000, true, null, null));
        }
        ledger.putNode(new GpuNode("node-" + n, gpus, 0, 0));
      }
      Placement placement = new Placement(ledger, policy);
      int pods = random.nextInt(30);
      for (int p = 0; p <= pods; p++) {
        PodDemand pod = randomPod(random, "p" + p);
        policy.observe(pod);
        FilterResult feasible = placement.filter(pod, List.copyOf(ledger.nodeNames()));
        Optional<Allocation> chosen = placement.place(pod);
        if (chosen.isEmpty()) {
          continue;
        }
        if (feasible.feasible().size() > 1) {
          Map<String, Integer> scores = placement.prioritize(pod, feasible.feasible());
          if (scores.values().stream().filter(v -> v == 10).count() == 1) {
            String winner = null;
            long top = Long.MIN_VALUE;
            for (String node : feasible.feasible()) {
              long plugins =
                  node.equals(chosen.get().node())
                      ? 0
                      : random.nextInt(101) + random.nextInt(101) + random.nextInt(101);
              long total =
                  fromExtender(PriorityMapping.toExtenderScore(scores.get(node)), weight) + plugins;
              if (total > top) {
                top = total;
                winner = node;
              }
            }
            assertThat(winner).as("round " + round + " pod " + p).isEqualTo(chosen.get().node());
            checked++;
          }
        }
        ledger.commit(chosen.get().withState(AllocationState.BOUND));
      }
    }
    assertThat(checked).isGreaterThan(500);
  }

  private static PodDemand randomPod(Random random, String name) {
    int kind = random.nextInt(10);
    int milli = kind == 0 ? 1000 * (1 + random.nextInt(2)) : 50 * (1 + random.nextInt(19));
    return new PodDemand(
        "ns/" + name,
        "uid-" + name,
        List.of(new GpuDemand("main", milli, 0, 0)),
        Set.of(),
        Set.of(),
        Set.of(),
        0,
        0);
  }
}
