package io.sharegpu.core.preemption;

import static io.sharegpu.core.preemption.NodeScenario.A100;
import static io.sharegpu.core.preemption.NodeScenario.H100;
import static io.sharegpu.core.preemption.NodeScenario.NODE;
import static io.sharegpu.core.preemption.NodeScenario.aNode;
import static io.sharegpu.core.preemption.NodeScenario.gpu;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VictimSelectorTest {
  private static final int HIGH = 100;

  private static PodDemand share(int milli, long mib) {
    return PodDemand.share("ns/new", "uid-new", milli, mib);
  }

  private static PodDemand wholeGpus(int count) {
    return PodDemand.of("ns/new", "uid-new", GpuDemand.whole("main", count, 0));
  }

  private static PreemptionPlan.Evict evict(PreemptionPlan plan) {
    assertThat(plan).isInstanceOf(PreemptionPlan.Evict.class);
    return (PreemptionPlan.Evict) plan;
  }

  private static PreemptionPlan.Impossible impossible(PreemptionPlan plan) {
    assertThat(plan).isInstanceOf(PreemptionPlan.Impossible.class);
    return (PreemptionPlan.Impossible) plan;
  }

  @Test
  void evictsFromOneGpuNotFromSeveralWhoseSumsWouldDo() {
    // node-level sums: 400m free over two GPUs, yet no GPU has 400m
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("a", 0, 800, 1000, 5)
            .share("b", 1, 600, 1000, 0, false, 600 * 600)
            .share("c", 1, 200, 1000, 0, false, 200 * 600);

    PreemptionPlan.Evict plan = evict(s.select(share(400, 1000), HIGH));

    // evicting c (200m) leaves 400m free on g1: one victim, of lower priority than a, and of
    // the two pods on g1 the one whose eviction loses less GPU time (both ran 10 minutes)
    assertThat(plan.victimUids()).containsExactly("c");
    assertThat(plan.preemptorAllocation().uuids()).containsExactly(gpu(1));
    assertThat(plan.cost().victims()).isEqualTo(1);
  }

  @Test
  void prefersFewerVictimsOverLowerPriorities() {
    NodeScenario s =
        aNode()
            .withGpus(1, H100)
            .share("small-1", 0, 250, 1000, 0)
            .share("small-2", 0, 250, 1000, 0)
            .share("big", 0, 500, 1000, 50);

    PreemptionPlan.Evict plan = evict(s.select(share(500, 1000), HIGH));

    assertThat(plan.victimUids()).containsExactly("big");
  }

  @Test
  void amongEquallyManyVictimsPrefersTheLowestHighestPriority() {
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("a", 0, 600, 1000, 40)
            .share("b", 0, 400, 1000, 10)
            .share("c", 1, 500, 1000, 30)
            .share("d", 1, 500, 1000, 20);

    // a 500m share: evict one of the 500m pods on g1 (c or d), or a (600m) on g0
    PreemptionPlan.Evict plan = evict(s.select(share(500, 1000), HIGH));

    assertThat(plan.victimUids()).containsExactly("d");
  }

  @Test
  void atEqualPrioritiesPrefersTheLeastGpuTimeLost() {
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("old", 0, 1000, 1000, 0, false, 3_600_000)
            .share("young", 1, 1000, 1000, 0, false, 60_000);

    PreemptionPlan.Evict plan = evict(s.select(share(1000 - 1, 1000), HIGH));

    assertThat(plan.victimUids()).containsExactly("young");
    assertThat(plan.cost().lostMilliGpuSeconds()).isEqualTo(60_000);
  }

  @Test
  void memoryCanBeWhatIsShort() {
    // g0 has compute free but almost no memory; evicting the memory-heavy pod is the only way
    NodeScenario s =
        aNode().withGpus(1, H100).share("light", 0, 300, 1000, 0).share("heavy", 0, 100, 75000, 5);

    PreemptionPlan.Evict plan = evict(s.select(share(200, 20000), HIGH));

    assertThat(plan.victimUids()).containsExactly("heavy");
  }

  @Test
  void aShareWithoutMemoryAskedTakesItsPartOfTheGpuMemory() {
    // 400m asks 40% of the GPU's memory by default (32624 MiB); 30559 MiB are free
    NodeScenario s =
        aNode()
            .withGpus(1, H100)
            .share("compute", 0, 500, 1000, 0)
            .share("memory", 0, 100, 50000, 5);

    PreemptionPlan.Evict plan = evict(s.select(share(400, 0), HIGH));

    assertThat(plan.victimUids()).containsExactly("memory");
  }

  @Test
  void equalOrHigherPriorityIsNeverEvicted() {
    NodeScenario s = aNode().withGpus(1, H100).share("peer", 0, 900, 1000, HIGH);

    PreemptionPlan.Impossible plan = impossible(s.select(share(500, 1000), HIGH));

    assertThat(plan.reason()).contains("priority below " + HIGH);
  }

  @Test
  void aGpuWithAHigherPriorityHolderIsUsedOnlyIfItsLowerPodsSuffice() {
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("vip", 0, 600, 1000, HIGH + 1)
            .share("low-0", 0, 400, 1000, 0)
            .share("low-1a", 1, 500, 1000, 0)
            .share("low-1b", 1, 500, 1000, 0);

    // 500m: g0 can only free 400m (vip stays); g1 frees 500m by evicting one pod
    PreemptionPlan.Evict plan = evict(s.select(share(500, 1000), HIGH));

    assertThat(plan.victimUids()).hasSize(1).first().asString().startsWith("low-1");
  }

  @Test
  void prefersNoBudgetViolationEvenAtTheCostOfMoreVictims() {
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("guarded", 0, 1000, 1000, 0, true, 0)
            .share("x", 1, 500, 1000, 5)
            .share("y", 1, 500, 1000, 5);

    PreemptionPlan.Evict plan = evict(s.select(share(1000 - 1, 1000), HIGH));

    assertThat(plan.victimUids()).containsExactly("x", "y");
    assertThat(plan.cost().budgetViolations()).isZero();
  }

  @Test
  void violatesABudgetWhenNothingElseWorks() {
    NodeScenario s = aNode().withGpus(1, H100).share("guarded", 0, 1000, 1000, 0, true, 0);

    PreemptionPlan.Evict plan = evict(s.select(share(300, 1000), HIGH));

    assertThat(plan.victimUids()).containsExactly("guarded");
    assertThat(plan.cost().budgetViolations()).isEqualTo(1);
  }

  @Test
  void aWholeGpuPodEvictsTheCheapestGpuOfShares() {
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("a", 0, 250, 1000, 0)
            .share("b", 0, 250, 1000, 0)
            .share("c", 0, 250, 1000, 0)
            .share("d", 1, 500, 1000, 0)
            .share("e", 1, 250, 1000, 0);

    PreemptionPlan.Evict plan = evict(s.select(wholeGpus(1), HIGH));

    assertThat(plan.victimUids()).containsExactly("d", "e");
    assertThat(plan.preemptorAllocation().uuids()).containsExactly(gpu(1));
  }

  @Test
  void aWholeGpuPodUsesIdleGpusFirstAndCountsAMultiGpuVictimOnce() {
    NodeScenario s =
        aNode()
            .withGpus(4, H100)
            .whole("pair", 1, 0, 1)
            .share("s2", 2, 100, 1000, 0)
            .share("s2b", 2, 100, 1000, 0);

    // three GPUs: g3 idle, then either g2 (two shares) or g0+g1 (one pod holding both)
    PreemptionPlan.Evict three = evict(s.select(wholeGpus(3), HIGH));
    assertThat(three.victimUids()).containsExactly("pair");
    assertThat(three.preemptorAllocation().uuids()).hasSize(3).contains(gpu(3));

    PreemptionPlan.Evict two = evict(s.select(wholeGpus(2), HIGH));
    assertThat(two.victimUids()).containsExactly("pair");
  }

  @Test
  void wholeGpusHeldByHigherPriorityCannotBeFreed() {
    NodeScenario s = aNode().withGpus(2, H100).whole("vip", HIGH + 1, 0).share("low", 1, 10, 10, 0);

    assertThat(s.select(wholeGpus(1), HIGH)).isInstanceOf(PreemptionPlan.Evict.class);
    PreemptionPlan.Impossible plan = impossible(s.select(wholeGpus(2), HIGH));
    assertThat(plan.reason()).contains("fewer than 2");
  }

  @Test
  void allowedModelsDecideWhichGpusCount() {
    NodeScenario s =
        aNode()
            .withGpus(1, A100)
            .withGpus(1, H100)
            .share("on-a100", 0, 100, 1000, 0)
            .share("on-h100-a", 1, 600, 1000, 5)
            .share("on-h100-b", 1, 300, 1000, 5);

    PreemptionPlan.Evict plan = evict(s.select(share(500, 1000).withModels(Set.of("h100")), HIGH));

    assertThat(plan.victimUids()).containsExactly("on-h100-a");
    assertThat(plan.preemptorAllocation().uuids()).containsExactly(gpu(1));
  }

  @Test
  void aPinnedPodOnlyFreesItsPinnedGpu() {
    NodeScenario s =
        aNode().withGpus(2, H100).share("cheap", 0, 1000, 1000, 0).share("dear", 1, 1000, 1000, 50);

    PreemptionPlan.Evict plan = evict(s.select(share(500, 1000).withPinned(Set.of(gpu(1))), HIGH));

    assertThat(plan.victimUids()).containsExactly("dear");
  }

  @Test
  void aRequestNoGpuCanMeetIsImpossibleWithItsReason() {
    NodeScenario s = aNode().withGpus(2, A100).share("a", 0, 500, 1000, 0);

    assertThat(impossible(s.select(share(100, 1000).withModels(Set.of("h100")), HIGH)).reason())
        .contains("allowed models: h100");
    assertThat(impossible(s.select(share(100, 50000), HIGH)).reason())
        .contains("no GPU on the node can take a share of 100m with 50000 MiB");
    assertThat(impossible(s.select(wholeGpus(3), HIGH)).reason())
        .contains("needs 3 whole GPUs; the node has 2");
  }

  @Test
  void aPodThatFitsAlreadyNeedsNoVictims() {
    NodeScenario s = aNode().withGpus(2, H100).share("a", 0, 500, 1000, 0);

    PreemptionPlan.Evict plan = evict(s.select(share(500, 1000), HIGH));

    assertThat(plan.victims()).isEmpty();
    assertThat(plan.cost()).isEqualTo(VictimSetCost.NONE);
  }

  @Test
  void identicalSmallPodsAreChosenCheapestFirst() {
    NodeScenario s = aNode().withGpus(1, H100);
    for (int i = 0; i < 30; i++) {
      // 30 pods of 33m: the cheapest are the ones of lowest priority
      s.share("p" + i, 0, 33, 100, i % 7);
    }
    // 10m free; 500m needs 490m more: 15 pods of 33m
    PreemptionPlan.Evict plan = evict(s.select(share(500, 1000), HIGH));

    assertThat(plan.victims()).hasSize(15);
    assertThat(plan.cost().highestPriority()).isEqualTo(3);
  }

  @Test
  void aPodOfSeveralContainersIsPlacedWhole() {
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("a", 0, 600, 1000, 0)
            .share("b", 1, 600, 1000, 1)
            .share("c", 1, 300, 1000, 0);
    PodDemand pod =
        PodDemand.of(
            "ns/new", "uid-new", GpuDemand.share("x", 700, 1000), GpuDemand.share("y", 300, 1000));

    // x (700m) needs a GPU with 700m: evict a (g0 → 1000m free, y fits there too or on g1)
    PreemptionPlan.Evict plan = evict(s.select(pod, HIGH));

    assertThat(plan.victimUids()).containsExactly("a");
  }

  @Test
  void aPodShortOfHostCpuEvictsAPodThatHoldsHostCpu() {
    NodeScenario s = aNode().withGpus(2, H100).withHostCpu(8000);
    s.pod("cpu-heavy", 0, false, 0, 6000, new GpuGrant(gpu(0), 100, 100));
    s.pod("gpu-only", 0, false, 0, 0, new GpuGrant(gpu(1), 100, 100));
    PodDemand pod = share(100, 100).withHost(4000, 0);

    PreemptionPlan.Evict plan = evict(s.select(pod, HIGH));

    assertThat(plan.victimUids()).containsExactly("cpu-heavy");
  }

  @Test
  void unknownNodeIsImpossible() {
    NodeScenario s = aNode().withGpus(1, H100);

    PreemptionPlan plan = s.selector().select(share(100, 0), HIGH, "n9", List.of());

    assertThat(impossible(plan).reason()).startsWith("no GPUNode");
  }

  @Test
  void refusesAVictimTheLedgerDoesNotHold() {
    NodeScenario s = aNode().withGpus(1, H100).share("a", 0, 500, 1000, 1);
    Allocation ghost =
        new Allocation(
            "ns/ghost",
            "ghost",
            NODE,
            List.of(new ContainerGrant("main", List.of(new GpuGrant(gpu(0), 500, 1000)), 500)),
            AllocationState.BOUND);
    List<PreemptionCandidate> offered =
        List.of(s.candidates.get(0), new PreemptionCandidate(ghost, 0, false, 0));

    // the ghost (priority 0) is the cheaper victim
    assertThatThrownBy(() -> s.selector().select(share(800, 0), HIGH, NODE, offered))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ns/ghost")
        .hasMessageContaining("does not hold these GPUs in the ledger");
  }

  @Test
  void refusesAVictimOfferedTwice() {
    NodeScenario s =
        aNode().withGpus(1, H100).share("a", 0, 500, 1000, 0).share("vip", 0, 400, 1000, HIGH);
    List<PreemptionCandidate> twice = List.of(s.candidates.get(0), s.candidates.get(0));

    // 800m must be freed, which only "both" copies of a would do
    assertThatThrownBy(() -> s.selector().select(share(900, 0), HIGH, NODE, twice))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offered twice");
  }

  @Test
  void refusesACandidateOfAnotherNode() {
    NodeScenario s = aNode().withGpus(1, H100).share("a", 0, 500, 1000, 0);

    assertThatThrownBy(() -> s.selector().select(share(800, 0), HIGH, "n2", s.candidates))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is on node n1, not n2");
  }

  @Test
  void manyCandidatesOfAPodShortOfHostCpuAreReprievedToAMinimalSet() {
    // more candidates than the exhaustive search takes: the reprieve decides
    NodeScenario s = aNode().withGpus(4, H100).withHostCpu(24_000);
    for (int i = 0; i < 16; i++) {
      s.pod("p" + i, i % 4, false, 0, 1500, new GpuGrant(gpu(i % 4), 100, 100));
    }
    PodDemand pod = share(100, 100).withHost(3500, 0);

    PreemptionPlan.Evict plan = evict(s.select(pod, HIGH));

    // 0 CPU free, 3500m needed: three pods of 1500m, the lowest priorities
    assertThat(plan.victims()).hasSize(3);
    assertThat(plan.cost().highestPriority()).isZero();
  }
}
