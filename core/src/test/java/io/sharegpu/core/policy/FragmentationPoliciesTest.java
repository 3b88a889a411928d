package io.sharegpu.core.policy;

import static io.sharegpu.core.policy.PolicyTestSupport.share;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FragmentationPoliciesTest {

  private static List<PodShape> shapes(int count, int milli) {
    List<PodShape> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new PodShape(1000, milli, 1, Set.of()));
    }
    return out;
  }

  /** "a" has a GPU with 600 free, "b" an idle GPU. */
  private static PolicyTestSupport cluster() {
    return new PolicyTestSupport().node("a", 1, 64000).node("b", 1, 64000).used("a", 0, 400);
  }

  @Test
  void fragmentFollowsTheDefinition() {
    PolicyTestSupport c =
        new PolicyTestSupport().node("n", 3, 4000).used("n", 0, 800).used("n", 1, 300);
    NodeUsage u = c.ledger().nodeUsage("n");
    NodeView v = new NodeView(u.node(), u.usage(), u.freeCpuMilli(), u.freeHostMemoryMib());
    Workload w = new Workload();
    w.add(new PodShape(1000, 500, 1, Set.of()), 1); // fits: GPU0 (200 free) is a fragment
    w.add(new PodShape(1000, 1000, 2, Set.of()), 1); // one idle GPU only: all 1900 free
    w.add(new PodShape(8000, 100, 1, Set.of()), 1); // too much CPU: all free
    w.add(new PodShape(0, 0, 0, Set.of()), 1); // no GPU: all free
    assertThat(Fragmentation.of(v, w)).isCloseTo((200 + 1900 + 1900 + 1900) / 4.0, within(1e-9));
    assertThat(Fragmentation.freeMilli(v)).isEqualTo(1900);
  }

  @Test
  void workloadFitKeepsTheMostFrequentShapes() {
    List<PodShape> pods = new ArrayList<>(shapes(90, 500));
    pods.addAll(shapes(6, 300));
    pods.addAll(shapes(4, 200));
    Workload w = Workload.fit(pods, 0.95);
    assertThat(w.size()).isEqualTo(2);
    assertThat(w.probability(0)).isCloseTo(0.90, within(1e-9));
    assertThat(w.probability(1)).isCloseTo(0.06, within(1e-9));
  }

  @Test
  void fgdAvoidsLeavingSliversThatBestFitLeaves() {
    // pods of 500m are expected; a 400m pod on "a" would leave 200m no one can use
    FgdPolicy fgd = new FgdPolicy(1);
    fgd.prime(shapes(10, 500));
    assertThat(cluster().place(fgd, share("p", 400, 1000))).isEqualTo("b/0");
    assertThat(cluster().place(new BestFitPolicy(1), share("p", 400, 1000))).isEqualTo("a/0");
  }

  @Test
  void fgdPicksTheGpuWhereTheFragmentGrowsLeast() {
    // GPU0 has 700 free, GPU1 500: a 200m pod on GPU1 would leave 300 < 500
    PolicyTestSupport c =
        new PolicyTestSupport().node("n", 2, 64000).used("n", 0, 300).used("n", 1, 500);
    FgdPolicy fgd = new FgdPolicy(1);
    fgd.prime(shapes(10, 500));
    assertThat(c.place(fgd, share("p", 200, 0))).isEqualTo("n/0");
  }

  @Test
  void shareGpuLearnsOnlyFromObservedPods() {
    ShareGpuPolicy policy = new ShareGpuPolicy();
    // cold start: it packs, like best fit
    assertThat(cluster().placeUnobserved(policy, share("p0", 400, 1000))).isEqualTo("a/0");
    for (int i = 0; i < 20; i++) {
      policy.observe(share("seen" + i, 500, 1000));
    }
    assertThat(policy.observed()).isEqualTo(20);
    assertThat(cluster().place(policy, share("p1", 400, 1000))).isEqualTo("b/0");
  }

  @Test
  void shareGpuFillsAGpuExactlyWhenThatLeavesNoFragment() {
    // 600 free on "a": a 600m pod fills it, no fragment anywhere; on "b" it would leave 400 < 500
    ShareGpuPolicy policy = new ShareGpuPolicy();
    for (int i = 0; i < 5; i++) {
      policy.observe(share("seen" + i, 500, 1000));
    }
    assertThat(cluster().place(policy, share("p", 600, 1000))).isEqualTo("a/0");
  }

  @Test
  void shareGpuScoresPodsWithoutGpusByTheCpuTheyStrand() {
    // "tight" has 6 cores, "roomy" 60: a 4-core CPU pod on "tight" leaves too little CPU for the
    // expected 4-core GPU pods, stranding its idle GPU
    PolicyTestSupport c = new PolicyTestSupport().node("tight", 1, 6000).node("roomy", 1, 60000);
    ShareGpuPolicy policy = new ShareGpuPolicy();
    for (int i = 0; i < 5; i++) {
      policy.observe(new PodShape(4000, 500, 1, Set.of()));
    }
    NodeUsage t = c.ledger().nodeUsage("tight");
    NodeUsage r = c.ledger().nodeUsage("roomy");
    double onTight =
        policy.scoreHostOnly(
            new NodeView(t.node(), t.usage(), t.freeCpuMilli(), t.freeHostMemoryMib()), 4000, 0);
    double onRoomy =
        policy.scoreHostOnly(
            new NodeView(r.node(), r.usage(), r.freeCpuMilli(), r.freeHostMemoryMib()), 4000, 0);
    assertThat(onRoomy).isGreaterThan(onTight);
  }

  @Test
  void shareGpuKeepsEnoughHostCpuToFeedTheGpusLeft() {
    // GPU pods seen ask for 10 CPU milli per GPU milli. "a" has 1500m GPU and 28 cores free: a
    // 20-core share there leaves 1000m GPU with 8 cores, enough for 800m only. "b" has CPU to
    // spare.
    // The fragment alone does not tell them apart (both leave GPU the seen shape fits) and packing
    // would pick "a"; the stranded GPU sends the pod to "b".
    PolicyTestSupport c =
        new PolicyTestSupport().node("a", 2, 28000).node("b", 2, 200000).used("a", 0, 500);
    ShareGpuPolicy policy = new ShareGpuPolicy();
    ShareGpuPolicy plain = new ShareGpuPolicy(0, 0, 0);
    for (int i = 0; i < 20; i++) {
      policy.observe(share("seen" + i, 500, 5000));
      plain.observe(share("seen" + i, 500, 5000));
    }
    assertThat(c.placeUnobserved(plain, share("p", 500, 20000))).isEqualTo("a/0");
    assertThat(c.placeUnobserved(policy, share("p", 500, 20000))).isEqualTo("b/0");
  }

  @Test
  void shareGpuSendsCpuOnlyPodsWhereCpuIsLeastNeeded() {
    // 8 cores per GPU seen; "lean" has 2 idle GPUs and 20 cores, "fat" 2 idle GPUs and 60 cores.
    // A 6-core pod without GPU leaves "lean" 14 cores (1750m of GPU fed), "fat" 54 (all fed).
    PolicyTestSupport c = new PolicyTestSupport().node("lean", 2, 20000).node("fat", 2, 60000);
    ShareGpuPolicy policy = new ShareGpuPolicy();
    for (int i = 0; i < 10; i++) {
      policy.observe(PolicyTestSupport.whole("seen" + i, 1, 8000));
    }
    assertThat(hostOnly(c, policy, "fat", 6000)).isGreaterThan(hostOnly(c, policy, "lean", 6000));
    // without stranding both nodes keep the 8 cores a seen pod asks for: no difference in fragment
    ShareGpuPolicy plain = new ShareGpuPolicy(0, 0, 0);
    for (int i = 0; i < 10; i++) {
      plain.observe(PolicyTestSupport.whole("seen" + i, 1, 8000));
    }
    assertThat(hostOnly(c, plain, "fat", 6000) - hostOnly(c, plain, "lean", 6000))
        .isCloseTo(0, within(1e-3));
  }

  @Test
  void cpuRunsOutFirstWhenTheFreeGpusWouldNeedAtLeastTheFreeCpuAtTheWorkloadsCpuPerGpu() {
    ShareGpuPolicy policy = new ShareGpuPolicy();
    policy.freeOnHostNodes(52_000, 4000);
    for (int i = 0; i < 10; i++) {
      policy.observe(PolicyTestSupport.whole("gpu" + i, 1, 8000));
    }
    // 8 cores per GPU x 4 free GPUs = 32 of 52 free cores: the CPU per GPU is the GPU pods'
    assertThat(policy.cpuBound()).isFalse();
    assertThat(policy.cpuPerGpu()).isCloseTo(8.0, within(1e-12));
    for (int i = 0; i < 6; i++) {
      policy.observe(new PodShape(6000, 0, 0, Set.of()));
    }
    // (80 + 36) cores over 10 GPUs = 11.6 per GPU x 4 = 46.4 < 52: CPU does not run out first
    assertThat(policy.cpuBound()).isFalse();
    assertThat(policy.cpuPerGpu()).isCloseTo(8.0, within(1e-12));
    for (int i = 0; i < 4; i++) {
      policy.observe(new PodShape(6000, 0, 0, Set.of()));
    }
    // (80 + 60) / 10 = 14 per GPU x 4 = 56 >= 52: the pods without GPUs count
    assertThat(policy.cpuBound()).isTrue();
    assertThat(policy.cpuPerGpu()).isCloseTo(14.0, within(1e-12));
    // more CPU free: it does not run out first any more
    policy.freeOnHostNodes(104_000, 4000);
    assertThat(policy.cpuBound()).isFalse();
    assertThat(policy.cpuPerGpu()).isCloseTo(8.0, within(1e-12));
    // no GPU free: nothing to feed
    policy.freeOnHostNodes(1000, 0);
    assertThat(policy.cpuBound()).isFalse();
  }

  @Test
  void whenCpuRunsOutFirstPodsWithoutGpusLeaveTheCpuOfNodesThatNeedItForTheirGpus() {
    // "a" has 2 idle GPUs and 32 cores, "b" 2 idle GPUs and 20 cores. GPU pods ask for 8 cores per
    // GPU, pods without GPUs bring the workload to 14 per GPU. With 52 cores free for 4 GPUs (56
    // needed) CPU runs out first. At 8 cores per GPU a 4-core pod strands nothing on either node
    // and packing sends it to "b"; at 14 per GPU it strands GPU on "b" (20 -> 16 cores for 2 GPUs)
    // and none on "a" (28 cores left feed both).
    PolicyTestSupport c = new PolicyTestSupport().node("a", 2, 32_000).node("b", 2, 20_000);
    ShareGpuPolicy policy = new ShareGpuPolicy();
    for (int i = 0; i < 10; i++) {
      policy.observe(PolicyTestSupport.whole("gpu" + i, 1, 8000));
    }
    for (int i = 0; i < 10; i++) {
      policy.observe(new PodShape(6000, 0, 0, Set.of()));
    }
    policy.freeOnHostNodes(104_000, 4000);
    assertThat(hostOnly(c, policy, "b", 4000)).isGreaterThan(hostOnly(c, policy, "a", 4000));
    policy.freeOnHostNodes(52_000, 4000);
    assertThat(hostOnly(c, policy, "a", 4000)).isGreaterThan(hostOnly(c, policy, "b", 4000));
  }

  @Test
  void shareGpuIgnoresHostResourcesOnNodesThatDoNotTrackThem() {
    // cpuMilli 0 = not tracked (the extender): the stranding term must not appear
    PolicyTestSupport c = new PolicyTestSupport().node("x", 2, 0).node("y", 2, 0).used("x", 0, 500);
    ShareGpuPolicy policy = new ShareGpuPolicy();
    for (int i = 0; i < 20; i++) {
      policy.observe(share("seen" + i, 500, 5000));
    }
    assertThat(c.placeUnobserved(policy, share("p", 500, 20000))).isEqualTo("x/0");
  }

  private static PodDemand restricted(String name, int milli, String... models) {
    PodDemand p = share(name, milli, 0);
    return new PodDemand(
        p.podKey(), p.podUid(), p.containers(), Set.of(models), Set.of(), Set.of(), 0, 0);
  }

  @Test
  void pressureComparesRestrictedDemandWithTheModelsShareOfTheCluster() {
    ShareGpuPolicy policy = new ShareGpuPolicy();
    for (int i = 0; i < 7; i++) {
      policy.observe(PolicyTestSupport.whole("any" + i, 1, 0));
    }
    policy.observe(PolicyTestSupport.whole("t4-" + 0, 1, 0).withModels(Set.of("t4")));
    policy.observe(PolicyTestSupport.whole("t4-" + 1, 1, 0).withModels(Set.of("T4")));
    policy.observe(PolicyTestSupport.whole("either", 1, 0).withModels(Set.of("t4", "g2")));
    // the inventory is not known yet: no pressure
    assertThat(policy.pressure("Tesla T4")).isZero();
    policy.supply(Map.of("Tesla T4", 1000L, "G2", 4000L));
    // t4 alone: 20% of the demand on 20% of the cluster; t4|g2: 10% of the demand on all of it
    assertThat(policy.pressure("Tesla T4")).isCloseTo(0.2 / 0.2 + 0.1 / 1.0, within(1e-12));
    assertThat(policy.pressure("G2")).isCloseTo(0.1, within(1e-12));
    assertThat(policy.pressure("V100")).isZero();
    // more unrestricted demand lowers it
    for (int i = 0; i < 10; i++) {
      policy.observe(PolicyTestSupport.whole("more" + i, 1, 0));
    }
    assertThat(policy.pressure("Tesla T4")).isCloseTo(0.1 / 0.2 + 0.05 / 1.0, within(1e-12));
  }

  @Test
  void shareGpuLeavesAScarceModelToThePodsRestrictedToIt() {
    // one T4 with 600m free, four idle G2: 600m shares are expected, 2 in 11 of them T4-only.
    // Filling the T4 leaves no fragment; on a G2 the share leaves 400m that the expected shares
    // cannot use. But T4-only pods asked for 18% of the demand and T4 is 20% of the cluster
    // (pressure 0.91): the unrestricted share is charged 545 for the T4 and goes to a G2. Hosts are
    // not tracked (as in the extender), so no stranding is involved.
    PolicyTestSupport c =
        new PolicyTestSupport().node("t4", 1, 0).node("g2", 4, 0, "G2").used("t4", 0, 400);
    ShareGpuPolicy policy = new ShareGpuPolicy();
    ShareGpuPolicy plain =
        new ShareGpuPolicy(1, ShareGpuPolicy.DEFAULT_STRAND_WEIGHT, /* reserveWeight= */ 0);
    for (ShareGpuPolicy p : List.of(policy, plain)) {
      for (int i = 0; i < 8; i++) {
        p.observe(share("any" + i, 600, 0));
      }
      p.observe(restricted("t4-0", 600, "t4"));
      p.observe(restricted("t4-1", 600, "t4"));
    }
    assertThat(c.place(plain, share("p", 600, 0))).isEqualTo("t4/0");
    assertThat(c.place(policy, share("p", 600, 0))).isEqualTo("g2/0");
    // a T4-only pod is not charged: it has nowhere else to go
    assertThat(c.place(policy, restricted("q", 600, "t4"))).isEqualTo("t4/0");
  }

  @Test
  void aModelNobodyAskedForIsPricedAsIfOnePodHadAskedForOneWholeGpuOfIt() {
    ShareGpuPolicy policy = new ShareGpuPolicy();
    policy.supply(Map.of("T4", 1000L, "G2", 4000L));
    for (int i = 0; i < 10; i++) {
      policy.observe(share("any" + i, 600, 0));
    }
    // 6,000 milli observed: T4 is 20% of the cluster, G2 80%
    assertThat(policy.pressure("T4")).isCloseTo(1000.0 / 6000 / 0.2, within(1e-12));
    assertThat(policy.pressure("G2")).isCloseTo(1000.0 / 6000 / 0.8, within(1e-12));
    // it fades as demand is observed without anyone asking for the model
    for (int i = 0; i < 90; i++) {
      policy.observe(share("more" + i, 600, 0));
    }
    assertThat(policy.pressure("T4")).isCloseTo(1000.0 / 60_000 / 0.2, within(1e-12));
  }

  private static double hostOnly(PolicyTestSupport c, ShareGpuPolicy p, String node, long cpu) {
    NodeUsage u = c.ledger().nodeUsage(node);
    return p.scoreHostOnly(
        new NodeView(u.node(), u.usage(), u.freeCpuMilli(), u.freeHostMemoryMib()), cpu, 0);
  }
}
