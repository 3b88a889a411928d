package io.sharegpu.core.policy;

import static io.sharegpu.core.policy.PolicyTestSupport.share;
import static io.sharegpu.core.policy.PolicyTestSupport.whole;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.request.PodDemand;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BaselinePoliciesTest {

  @Test
  void bestFitTakesTheFullestNodeAndGpu() {
    PolicyTestSupport c =
        new PolicyTestSupport()
            .node("a", 2, 64000)
            .node("b", 2, 64000)
            .used("b", 1, 300)
            .used("b", 0, 600);
    assertThat(c.place(new BestFitPolicy(1), share("p", 300, 1000))).isEqualTo("b/0");
  }

  @Test
  void bestFitCountsCpuLeft() {
    // same GPU left on both; "b" has less CPU left after the pod, so it fits best
    PolicyTestSupport c = new PolicyTestSupport().node("a", 1, 128000).node("b", 1, 16000);
    assertThat(c.place(new BestFitPolicy(1), share("p", 500, 8000))).isEqualTo("b/0");
  }

  @Test
  void packingPrefersSharedGpusThenUsedNodesThenIdleNodes() {
    PolicyTestSupport c =
        new PolicyTestSupport()
            .node("idle", 2, 64000)
            .node("used", 2, 64000)
            .node("shared", 2, 64000)
            .used("used", 0, 1000)
            .used("shared", 0, 400);
    // a share fits on the shared GPU
    assertThat(c.place(new PackingPolicy(1), share("p", 500, 0))).isEqualTo("shared/0");
    // a whole GPU cannot use a shared GPU: an idle GPU of a node in use beats an idle node
    PolicyTestSupport d =
        new PolicyTestSupport().node("idle", 2, 64000).node("used", 2, 64000).used("used", 0, 1000);
    assertThat(d.place(new PackingPolicy(1), whole("w", 1, 0))).isEqualTo("used/1");
  }

  @Test
  void clusteringKeepsPodsOfOneAffinityTogether() {
    PolicyTestSupport c =
        new PolicyTestSupport().node("a", 4, 64000).node("b", 4, 64000).node("c", 4, 64000);
    ClusteringPolicy policy = new ClusteringPolicy(3);
    commit(c, policy, share("p1", 250, 0), "a");
    commit(c, policy, whole("w1", 1, 0), "c");
    // every share is one affinity: a share of another size joins the node of the 250m share
    assertThat(c.place(policy, share("p2", 700, 0))).isEqualTo("a/0");
    // a one-GPU pod joins the node of the other one-GPU pod, not the sharing node or the idle one
    assertThat(c.place(policy, whole("w2", 1, 0))).isEqualTo("c/1");
    // a two-GPU pod has no node of its affinity: the idle node beats the (fuller) nodes of others
    assertThat(c.place(policy, whole("w3", 2, 0))).isEqualTo("b/0");
  }

  @Test
  void clusteringScoresByBandThenByFreeGpu() {
    PolicyTestSupport c =
        new PolicyTestSupport()
            .node("only", 8, 96000)
            .node("mixed", 8, 96000)
            .node("idle", 8, 96000)
            .node("other", 8, 96000);
    ClusteringPolicy policy = new ClusteringPolicy(3);
    commit(c, policy, share("s1", 500, 0), "only");
    commit(c, policy, share("s2", 300, 0), "mixed");
    commit(c, policy, whole("w1", 2, 0), "mixed");
    commit(c, policy, whole("w2", 4, 0), "other");
    PodDemand pod = share("p", 200, 0);
    policy.observe(pod);
    Placement placement = new Placement(c.ledger(), policy);
    // 25 * (8000 - free) / 8000 in integers, on top of the band
    assertThat(score(c, placement, policy, pod, "only")).isEqualTo(75 + 1);
    assertThat(score(c, placement, policy, pod, "mixed")).isEqualTo(50 + 7);
    assertThat(score(c, placement, policy, pod, "idle")).isEqualTo(25);
    assertThat(score(c, placement, policy, pod, "other")).isEqualTo(12);
    assertThat(ClusteringPolicy.key(share("x", 999, 0))).isEqualTo(ClusteringPolicy.SHARE);
    assertThat(ClusteringPolicy.key(whole("x", 2, 0))).isEqualTo(2);
  }

  @Test
  void clusteringSeesNewPodsAndLateObservations() {
    PolicyTestSupport c = new PolicyTestSupport().node("a", 8, 96000);
    ClusteringPolicy policy = new ClusteringPolicy(3);
    commit(c, policy, share("s1", 500, 0), "a");
    PodDemand pod = share("p", 200, 0);
    Placement placement = new Placement(c.ledger(), policy);
    assertThat(score(c, placement, policy, pod, "a")).isEqualTo(75 + 1);
    // a whole-GPU pod joins the node: it now holds two affinities
    commit(c, policy, whole("w1", 1, 0), "a");
    placement = new Placement(c.ledger(), policy);
    assertThat(score(c, placement, policy, pod, "a")).isEqualTo(50 + 4);
    // a pod the policy has not observed does not count until it is observed
    PolicyTestSupport d = new PolicyTestSupport().node("a", 8, 96000);
    ClusteringPolicy fresh = new ClusteringPolicy(3);
    PodDemand unseen = whole("w2", 1, 0);
    d.ledger().commit(new Placement(d.ledger(), fresh).choose(unseen, "a").orElseThrow());
    Placement pd = new Placement(d.ledger(), fresh);
    assertThat(score(d, pd, fresh, pod, "a")).isEqualTo(25 + 3);
    fresh.observe(unseen);
    assertThat(score(d, pd, fresh, pod, "a")).isEqualTo(3);
  }

  private static void commit(
      PolicyTestSupport c, ClusteringPolicy policy, PodDemand pod, String node) {
    policy.observe(pod);
    c.ledger().commit(new Placement(c.ledger(), policy).choose(pod, node).orElseThrow());
  }

  private static double score(
      PolicyTestSupport c,
      Placement placement,
      ClusteringPolicy policy,
      PodDemand pod,
      String node) {
    Allocation a = placement.choose(pod, node).orElseThrow();
    NodeUsage u = c.ledger().nodeUsage(node);
    NodeView view = new NodeView(u.node(), u.usage(), u.freeCpuMilli(), u.freeHostMemoryMib());
    return policy.score(view, pod, a.containers());
  }

  @Test
  void dotProdPrefersTheNodeWithLessLeft() {
    PolicyTestSupport c = new PolicyTestSupport().node("big", 8, 128000).node("small", 1, 8000);
    assertThat(c.place(new DotProdPolicy(1), whole("w", 1, 4000))).isEqualTo("small/0");
  }

  @Test
  void randomSpreadsOverFeasibleNodesOnly() {
    PolicyTestSupport c =
        new PolicyTestSupport()
            .node("a", 1, 64000)
            .node("b", 1, 64000)
            .node("c", 1, 64000)
            .used("c", 0, 900);
    Set<String> seen = new HashSet<>();
    for (long seed = 0; seed < 40; seed++) {
      seen.add(c.place(new RandomPolicy(seed), share("p", 500, 0)));
    }
    assertThat(seen).containsExactlyInAnyOrder("a/0", "b/0");
  }
}
