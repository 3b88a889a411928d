package io.sharegpu.core.placement;

import static io.sharegpu.core.Fixtures.A100;
import static io.sharegpu.core.Fixtures.A100_MIB;
import static io.sharegpu.core.Fixtures.H100_MIB;
import static io.sharegpu.core.Fixtures.h100Node;
import static io.sharegpu.core.Fixtures.node;
import static io.sharegpu.core.Fixtures.share;
import static io.sharegpu.core.Fixtures.uuid;
import static io.sharegpu.core.Fixtures.whole;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PlacementTest {

  /** n1: 2 H100 (g0 has 800m/60000 MiB held by ns/x), n2: 2 A100 idle, n3: MIG A100. */
  private static Ledger cluster() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 2));
    l.putNode(node("n2", 2, A100, A100_MIB));
    Gpu parent = new Gpu("GPU-n3-parent", 0, A100, A100_MIB, 1000, true, null, null);
    Gpu mig1 = new Gpu("MIG-n3-a", 0, A100, 20096, 428, true, "GPU-n3-parent", "3g.20gb");
    Gpu mig2 = new Gpu("MIG-n3-b", 1, A100, 9856, 142, true, "GPU-n3-parent", "1g.10gb");
    l.putNode(GpuNode.of("n3", List.of(parent, mig1, mig2)));
    l.commit(share("x", "n1", uuid("n1", 0), 800, 60000));
    return l;
  }

  private static PodDemand pod(GpuDemand... cs) {
    return PodDemand.of("ns/p", "uid-p", cs);
  }

  static Stream<Arguments> feasibility() {
    return Stream.of(
        Arguments.of(
            "small share fits everywhere",
            pod(GpuDemand.share("main", 100, 0)),
            List.of("n1", "n2", "n3")),
        Arguments.of(
            "share bigger than any MIG instance",
            pod(GpuDemand.share("main", 500, 0)),
            List.of("n1", "n2")),
        Arguments.of(
            "share with more memory than an A100",
            pod(GpuDemand.share("main", 100, 50000)),
            List.of("n1")),
        Arguments.of("two whole GPUs", pod(GpuDemand.whole("main", 2, 0)), List.of("n2")),
        Arguments.of(
            "one whole GPU never on MIG", pod(GpuDemand.whole("main", 1, 0)), List.of("n1", "n2")),
        Arguments.of("three whole GPUs fit nowhere", pod(GpuDemand.whole("main", 3, 0)), List.of()),
        Arguments.of(
            "whole + share in one pod",
            pod(GpuDemand.whole("a", 1, 0), GpuDemand.share("b", 500, 0)),
            List.of("n2")),
        Arguments.of(
            "two shares that only fit on one GPU together",
            pod(GpuDemand.share("a", 600, 1000), GpuDemand.share("b", 400, 1000)),
            List.of("n1", "n2")),
        Arguments.of(
            "model h100 only",
            pod(GpuDemand.share("main", 100, 0)).withModels(Set.of("H100")),
            List.of("n1")),
        Arguments.of(
            "pinned to n2's g1",
            pod(GpuDemand.share("main", 100, 0)).withPinned(Set.of(uuid("n2", 1))),
            List.of("n2")),
        Arguments.of(
            "excluded n1's free GPU, share too big for g0",
            pod(GpuDemand.share("main", 300, 0)).withExcluded(Set.of(uuid("n1", 1))),
            List.of("n2", "n3")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("feasibility")
  void filterFollowsTheFitRules(String name, PodDemand pod, List<String> feasible) {
    Placement p = new Placement(cluster(), new BinPackPolicy());
    FilterResult r = p.filter(pod, List.of("n1", "n2", "n3"));
    assertThat(r.feasible()).containsExactlyElementsOf(feasible);
    for (String n : feasible) {
      assertThat(r.rejected()).doesNotContainKey(n);
    }
    assertThat(r.feasible().size() + r.rejected().size()).isEqualTo(3);
    for (String n : feasible) {
      Allocation a = p.choose(pod, n).orElseThrow();
      assertThat(a.state()).isEqualTo(AllocationState.RESERVED);
      Ledger l = cluster();
      l.commit(a); // the chosen grant never breaks the invariant
    }
  }

  @Test
  void unknownNodeIsRejectedWithNoGpuNode() {
    Placement p = new Placement(cluster(), new BinPackPolicy());
    FilterResult r = p.filter(PodDemand.share("ns/p", "u", 100, 0), List.of("nope"));
    assertThat(r.rejected().get("nope").reason()).startsWith("no GPUNode");
    assertThat(p.prioritize(PodDemand.share("ns/p", "u", 100, 0), List.of("nope")))
        .containsEntry("nope", 0);
  }

  @Test
  void binpackPutsAShareOnTheFullestGpuAndSpreadOnTheEmptiest() {
    Ledger l = cluster();
    PodDemand pod = PodDemand.share("ns/p", "u", 100, 1000);
    assertThat(new Placement(l, new BinPackPolicy()).choose(pod, "n1").orElseThrow().uuids())
        .containsExactly(uuid("n1", 0));
    assertThat(new Placement(l, new SpreadPolicy()).choose(pod, "n1").orElseThrow().uuids())
        .containsExactly(uuid("n1", 1));
  }

  @Test
  void binpackPrefersTheBusiestNodeAndSpreadTheIdlest() {
    Ledger l = cluster();
    PodDemand pod = PodDemand.share("ns/p", "u", 100, 1000);
    Placement bin = new Placement(l, new BinPackPolicy());
    assertThat(bin.place(pod).orElseThrow().node()).isEqualTo("n1");
    Map<String, Integer> s = bin.prioritize(pod, List.of("n1", "n2"));
    assertThat(s).containsEntry("n1", 10);
    assertThat(s.get("n2")).isBetween(1, 9);
    Placement spread = new Placement(l, new SpreadPolicy());
    assertThat(spread.prioritize(pod, List.of("n1", "n2"))).containsEntry("n2", 10);
    assertThat(spread.place(pod).orElseThrow().node()).isNotEqualTo("n1");
  }

  @Test
  void shareDefaultMemoryIsItsPartOfTheGpuRoundedDown() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 1));
    Allocation a =
        new Placement(l, new BinPackPolicy())
            .choose(PodDemand.share("ns/p", "u", 333, 0), "n1")
            .orElseThrow();
    GpuGrant g = a.containers().get(0).gpus().get(0);
    assertThat(g.computeMilli()).isEqualTo(333);
    assertThat(g.memoryMib()).isEqualTo(333 * H100_MIB / 1000);
  }

  @Test
  void fourQuartersFitOneGpuWhoseMemoryDoesNotDivideByFour() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 1));
    Placement p = new Placement(l, new BinPackPolicy());
    for (int i = 0; i < 4; i++) {
      Allocation a = p.choose(PodDemand.share("ns/q" + i, "u" + i, 250, 0), "n1").orElseThrow();
      l.commit(a);
    }
    assertThat(l.usage("n1").get(0).usedMilli()).isEqualTo(1000);
    assertThat(l.usage("n1").get(0).usedMemoryMib()).isLessThanOrEqualTo(H100_MIB);
  }

  @Test
  void wholeGpusGetFullMemoryAndAreExclusive() {
    Ledger l = cluster();
    Allocation a =
        new Placement(l, new BinPackPolicy())
            .choose(pod(GpuDemand.whole("main", 2, 0)), "n2")
            .orElseThrow();
    assertThat(a.containers().get(0).gpus())
        .extracting(GpuGrant::computeMilli, GpuGrant::memoryMib)
        .containsOnly(org.assertj.core.groups.Tuple.tuple(1000, A100_MIB));
    l.commit(a);
    assertThat(
            new Placement(l, new BinPackPolicy())
                .filter(PodDemand.share("ns/q", "q", 1, 1), List.of("n2"))
                .feasible())
        .isEmpty();
  }

  @Test
  void releaseFreesTheGpuForTheNextPod() {
    Ledger l = cluster();
    PodDemand big = PodDemand.share("ns/p", "u", 500, 0).withModels(Set.of("h100"));
    Placement p = new Placement(l, new BinPackPolicy());
    l.commit(whole("w", "n1", H100_MIB, uuid("n1", 1)));
    assertThat(p.filter(big, List.of("n1")).feasible()).isEmpty();
    l.release("w");
    assertThat(p.filter(big, List.of("n1")).feasible()).containsExactly("n1");
  }

  @Test
  void unhealthyGpuTakesNoNewPods() {
    Ledger l = new Ledger();
    l.putNode(GpuNode.of("n1", List.of(Gpu.whole("GPU-a", 0, A100, A100_MIB).withHealthy(false))));
    Placement p = new Placement(l, new BinPackPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 100, 0);
    assertThat(p.filter(pod, List.of("n1")).rejected().get("n1").reason())
        .isEqualTo("no GPU the pod may use: unhealthy");
    assertThat(p.explain(pod, "n1").gpuReasons())
        .containsExactly("GPU 0 (NVIDIA A100-SXM4-40GB, GPU-a): unhealthy");
  }

  @Test
  void explainSaysPerGpuWhyInWords() {
    Placement p = new Placement(cluster(), new BinPackPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 300, 0).withExcluded(Set.of(uuid("n1", 1)));
    Rejection r = p.explain(pod, "n1");
    assertThat(r.reason()).isEqualTo("no GPU has 300m compute and its share of memory free");
    assertThat(r.gpuReasons())
        .containsExactly(
            "GPU 0 (NVIDIA H100 80GB HBM3, GPU-n1-g0): 200m of 1000m compute free, need 300m;"
                + " 21559 of 81559 MiB memory free, need 24467 MiB",
            "GPU 1 (NVIDIA H100 80GB HBM3, GPU-n1-g1): excluded by the pod");

    Rejection models = p.explain(pod.withModels(Set.of("h100")), "n2");
    assertThat(models.reason())
        .isEqualTo("no GPU the pod may use: model not allowed (allowed: h100)");
    assertThat(models.gpuReasons().get(0))
        .endsWith("model NVIDIA A100-SXM4-40GB not allowed (allowed: h100)");

    Rejection mig = p.explain(pod(GpuDemand.whole("main", 1, 0)), "n3");
    assertThat(mig.gpuReasons())
        .containsExactly(
            "GPU 0 (NVIDIA A100-SXM4-40GB, GPU-n3-parent): MIG enabled: pods use its MIG instances",
            "GPU 0 MIG 3g.20gb (NVIDIA A100-SXM4-40GB, MIG-n3-a): MIG instance cannot take a"
                + " whole-GPU request",
            "GPU 1 MIG 1g.10gb (NVIDIA A100-SXM4-40GB, MIG-n3-b): MIG instance cannot take a"
                + " whole-GPU request");

    Ledger l = cluster();
    l.commit(whole("w", "n2", A100_MIB, uuid("n2", 0)));
    Rejection held =
        new Placement(l, new BinPackPolicy()).explain(pod(GpuDemand.whole("main", 2, 0)), "n2");
    assertThat(held.reason()).isEqualTo("needs 2 idle GPUs, found 1");
    assertThat(held.gpuReasons().get(0)).endsWith("held whole by ns/w");
    assertThat(held.gpuReasons().get(1)).endsWith("idle and allowed");
  }

  @Test
  void explainOfAFittingNodeNamesTheGpus() {
    Placement p = new Placement(cluster(), new BinPackPolicy());
    Rejection r = p.explain(PodDemand.share("ns/p", "u", 100, 1000), "n1");
    assertThat(r.reason())
        .isEqualTo(
            "fits: container main on GPU 0 (NVIDIA H100 80GB HBM3, GPU-n1-g0) 100m/1000 MiB");
    assertThat(r.gpuReasons().get(0))
        .contains("200m of 1000m compute and 21559 of 81559 MiB memory free (used by ns/x)");
  }

  @Test
  void prioritizeAgreesWithPlace() {
    Ledger l = cluster();
    for (String policy : List.of("binpack", "spread")) {
      Placement p = new Placement(l, PolicyRegistry.ALL.create(policy, 1));
      PodDemand pod = PodDemand.share("ns/p", "u", 100, 0);
      String best = p.place(pod).orElseThrow().node();
      assertThat(p.prioritize(pod, List.of("n1", "n2", "n3"))).containsEntry(best, 10);
    }
  }

  @Test
  void shareOnAMigNodeGoesToAnInstanceNeverTheParent() {
    Placement p = new Placement(cluster(), new BinPackPolicy());
    PodDemand small = PodDemand.share("ns/p", "u", 100, 0);
    assertThat(p.choose(small, "n3").orElseThrow().uuids())
        .singleElement()
        .asString()
        .startsWith("MIG-");
    // 200m fits only the 3g instance (428m); its default memory is its part of the instance
    Allocation a = p.choose(PodDemand.share("ns/p", "u", 200, 0), "n3").orElseThrow();
    GpuGrant g = a.containers().get(0).gpus().get(0);
    assertThat(g.uuid()).isEqualTo("MIG-n3-a");
    assertThat(g.memoryMib()).isEqualTo(200L * 20096 / 428);
  }

  @Test
  void terminatingPodKeepsItsGpuFromNewPods() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 1));
    l.commit(whole("old", "n1", H100_MIB, uuid("n1", 0)));
    l.setState("old", AllocationState.TERMINATING);
    Placement p = new Placement(l, new SpreadPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 100, 0);
    assertThat(p.filter(pod, List.of("n1")).feasible()).isEmpty();
    assertThat(p.explain(pod, "n1").gpuReasons().get(0)).endsWith("held whole by ns/old");
    l.release("old");
    assertThat(p.filter(pod, List.of("n1")).feasible()).containsExactly("n1");
  }

  @Test
  void twoSharesOfOnePodMayShareOneGpu() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 1));
    PodDemand pod = pod(GpuDemand.share("a", 600, 1000), GpuDemand.share("b", 400, 1000));
    Allocation a = new Placement(l, new SpreadPolicy()).choose(pod, "n1").orElseThrow();
    assertThat(a.containers()).extracting(c -> c.container()).containsExactly("a", "b");
    assertThat(a.uuids()).containsExactly(uuid("n1", 0));
    l.commit(a);
    assertThat(l.usage("n1").get(0).usedMilli()).isEqualTo(1000);
    assertThat(l.usage("n1").get(0).podKeys()).containsExactly("ns/p");
  }

  @Test
  void hostCpuAndMemoryMustFitWhereTheNodeTracksThem() {
    Ledger l = new Ledger();
    l.putNode(new GpuNode("n1", h100Node("n1", 1).gpus(), 4000, 16000));
    l.putNode(h100Node("n2", 1)); // not tracked
    Placement p = new Placement(l, new BinPackPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 100, 0).withHost(8000, 1000);
    FilterResult r = p.filter(pod, List.of("n1", "n2"));
    assertThat(r.feasible()).containsExactly("n2");
    assertThat(r.rejected().get("n1").reason()).isEqualTo("not enough free host CPU for 8000m");
  }

  @Test
  void prioritizeAfterFilterUsesTheSameChoice() {
    Ledger l = cluster();
    Placement p = new Placement(l, new BinPackPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 150, 0);
    FilterResult r = p.filter(pod, List.of("n1", "n2", "n3", "ghost"));
    Map<String, Integer> s = p.prioritize(pod, r.feasible());
    assertThat(s.keySet()).containsExactlyElementsOf(r.feasible());
    String top =
        s.entrySet().stream().filter(e -> e.getValue() == 10).findFirst().orElseThrow().getKey();
    assertThat(p.place(pod).orElseThrow().node()).isEqualTo(top);
    // a commit in between changes the ledger: choose sees it
    l.commit(p.choose(pod, top).orElseThrow());
    assertThat(p.choose(pod.withHost(0, 0), top)).isPresent();
  }

  @Test
  void aNameAskedTwiceIsAnsweredOnceInTheOrderAsked() {
    Placement p = new Placement(cluster(), new BinPackPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 500, 0);
    FilterResult r = p.filter(pod, List.of("n3", "n2", "ghost", "n1", "n2", "ghost", "n3"));
    assertThat(r.feasible()).containsExactly("n2", "n1");
    assertThat(r.rejectedCount()).isEqualTo(2);
    assertThat(r.rejection(0).node()).isEqualTo("n3");
    assertThat(r.rejection(1).node()).isEqualTo("ghost");
    assertThat(r.rejected().keySet()).containsExactly("n3", "ghost");
    assertThatThrownBy(() -> r.feasible().add("n9"))
        .isInstanceOf(UnsupportedOperationException.class);

    NodeScores s = p.prioritize(pod, List.of("n1", "ghost", "n2", "n1", "n3"));
    assertThat(s.keySet()).containsExactly("n1", "ghost", "n2", "n3");
    assertThat(s.size()).isEqualTo(4);
    assertThat(s.node(2)).isEqualTo("n2");
    assertThat(s.score(1)).isZero();
    assertThat(s).containsEntry("ghost", 0).containsEntry("n3", 0).doesNotContainKey("n9");
    // n1 already holds 800m on g0, so binpack puts 500m on n1's idle g1 or n2: both fit, one is 10
    assertThat(s.get("n1") + s.get("n2")).isGreaterThan(10);
    assertThat(List.of(s.get("n1"), s.get("n2"))).contains(10);
  }

  @Test
  void prioritizeOfTheFilteredNamesInAnotherListGivesTheSameScores() {
    Placement p = new Placement(cluster(), new BinPackPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 150, 0);
    FilterResult r = p.filter(pod, List.of("n1", "n2", "n3"));
    NodeScores fast = p.prioritize(pod, r.feasible());
    // new String objects, as a second HTTP call would bring them
    List<String> copies = r.feasible().stream().map(n -> new String(n.toCharArray())).toList();
    Placement fresh = new Placement(cluster(), new BinPackPolicy());
    NodeScores slow = fresh.prioritize(pod, copies);
    assertThat(slow).isEqualTo(fast);
    assertThat(p.prioritize(pod, copies)).isEqualTo(fast);
  }

  @Test
  void memoryOnIdleGpusAppliesTheFilterRulesPerGpu() {
    Ledger l = cluster();
    NodeUsage n1 = l.nodeUsage("n1");
    NodeUsage n3 = l.nodeUsage("n3");
    PodDemand quarter = PodDemand.share("ns/p", "u", 250, 0);
    // n1's g0 is 80% held, but the answer is for the GPU idle
    assertThat(Placement.memoryOnIdleGpus(quarter, 0, n1)).containsExactly(20389, 20389);
    assertThat(Placement.memoryOnIdleGpus(quarter.withModels(Set.of("a100")), 0, n1))
        .containsExactly(-1, -1);
    assertThat(Placement.memoryOnIdleGpus(quarter.withPinned(Set.of(uuid("n1", 1))), 0, n1))
        .containsExactly(-1, 20389);
    // the MIG parent takes nothing; the 1g instance (142m) is too small for 250m
    assertThat(Placement.memoryOnIdleGpus(quarter, 0, n3)).containsExactly(-1, 11738, -1);
    assertThat(Placement.memoryOnIdleGpus(PodDemand.share("ns/p", "u", 100, 90000), 0, n1))
        .containsExactly(-1, -1);
    PodDemand two = pod(GpuDemand.whole("main", 2, 0));
    assertThat(Placement.memoryOnIdleGpus(two, 0, n1)).containsExactly(H100_MIB, H100_MIB);
    assertThat(Placement.memoryOnIdleGpus(two, 0, n3)).containsExactly(-1, -1, -1);
  }

  @Test
  void chooseOnAWhatIfUsageFitsWhereTheLiveNodeDoesNot() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 1));
    l.commit(share("x", "n1", uuid("n1", 0), 800, 1000));
    Placement p = new Placement(l, new BinPackPolicy());
    PodDemand pod = PodDemand.share("ns/p", "u", 500, 1000);
    assertThat(p.choose(pod, "n1")).isEmpty();

    Allocation a = p.choose(pod, l.usageWithout("n1", List.of("x")).orElseThrow()).orElseThrow();

    assertThat(a.node()).isEqualTo("n1");
    assertThat(a.uuids()).containsExactly(uuid("n1", 0));
    assertThat(l.nodeUsage("n1").usedMilli(0)).isEqualTo(800);
  }
}
