package io.sharegpu.core.policy;

import static io.sharegpu.core.policy.PolicyTestSupport.share;
import static io.sharegpu.core.policy.PolicyTestSupport.whole;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.placement.PlacementPolicies;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BaselinePoliciesTest {

  @Test
  void registryKnowsEveryPolicy() {
    TracePolicies.registerAll();
    assertThat(PlacementPolicies.names())
        .contains("random", "dotprod", "clustering", "packing", "bestfit", "fgd", "sharegpu");
    assertThat(PlacementPolicies.byName("FGD", 1)).isInstanceOf(FgdPolicy.class);
    assertThat(PlacementPolicies.byName("sharegpu", 1).name()).isEqualTo("sharegpu");
  }

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
  void clusteringKeepsEqualRequestsTogether() {
    PolicyTestSupport c = new PolicyTestSupport().node("a", 2, 64000).node("b", 2, 64000);
    ClusteringPolicy policy = new ClusteringPolicy(3);
    String first = c.place(policy, share("p1", 250, 0));
    c.ledger()
        .commit(
            new io.sharegpu.core.placement.Placement(c.ledger(), policy)
                .choose(share("p1", 250, 0), first.substring(0, 1))
                .orElseThrow());
    // a different request avoids the node that holds the 250m pod; the same request joins it
    String other = c.place(policy, share("q", 700, 0));
    String same = c.place(policy, share("p2", 250, 0));
    assertThat(other.charAt(0)).isNotEqualTo(first.charAt(0));
    assertThat(same.charAt(0)).isEqualTo(first.charAt(0));
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
