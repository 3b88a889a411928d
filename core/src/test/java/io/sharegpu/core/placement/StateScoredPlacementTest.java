package io.sharegpu.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Nodes in the same state are scored once only when the GPU choice does not depend on the order of
 * the GPUs; where it does, each node is evaluated by itself.
 */
class StateScoredPlacementTest {

  /** GPU ties everywhere (index order decides); the node score depends on the GPU taken. */
  private static class ByGpuTaken implements PlacementPolicy, GpuPreference {
    @Override
    public String name() {
      return "by-gpu-taken";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      double s = 0;
      for (ContainerGrant c : grant) {
        for (GpuGrant g : c.gpus()) {
          for (GpuUsage u : view.gpus()) {
            if (u.gpu().uuid().equals(g.uuid())) {
              s -= u.usedMemoryMib() + g.memoryMib();
            }
          }
        }
      }
      return s;
    }

    @Override
    public double gpuScore(
        Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
      return 0;
    }
  }

  private static final class ByGpuTakenStateScored extends ByGpuTaken implements StateScored {}

  private static Ledger mirrored() {
    Ledger l = new Ledger();
    for (String n : List.of("a", "b")) {
      l.putNode(
          GpuNode.of(
              n,
              List.of(
                  Gpu.whole(n + "-0", 0, "NVIDIA H100 80GB HBM3", 1000),
                  Gpu.whole(n + "-1", 1, "NVIDIA H100 80GB HBM3", 1000))));
    }
    // a: GPU 0 lightly used, GPU 1 more; b: the other way round (the same state)
    commit(l, "a", "a-0", 100, 100);
    commit(l, "a", "a-1", 200, 500);
    commit(l, "b", "b-0", 200, 500);
    commit(l, "b", "b-1", 100, 100);
    return l;
  }

  private static void commit(Ledger l, String node, String uuid, int milli, long mib) {
    String uid = uuid + "-fill";
    l.commit(
        new Allocation(
            "ns/" + uid,
            uid,
            node,
            List.of(new ContainerGrant("main", List.of(new GpuGrant(uuid, milli, mib)), milli)),
            AllocationState.BOUND));
  }

  @Test
  void orderDependentGpuChoiceIsEvaluatedNodeByNode() {
    Ledger l = mirrored();
    assertThat(l.nodeUsage("a").stateClass()).isEqualTo(l.nodeUsage("b").stateClass());
    PodDemand pod = PodDemand.share("ns/p", "p", 100, 100);
    List<String> names = List.of("a", "b");

    Placement byClass = new Placement(l, new ByGpuTakenStateScored());
    Placement byNode = new Placement(l, new ByGpuTaken());
    FilterResult f = byClass.filter(pod, names);
    assertThat(f).isEqualTo(byNode.filter(pod, names));
    Map<String, Integer> scores = byClass.prioritize(pod, f.feasible());

    assertThat(scores).isEqualTo(byNode.prioritize(pod, names)).containsEntry("a", 10);
    assertThat(scores.get("b")).isLessThan(10);
    assertThat(byClass.place(pod)).isEqualTo(byNode.place(pod));
    assertThat(byClass.choose(pod, "b").orElseThrow().uuids()).containsExactly("b-0");
  }

  @Test
  void alikeNodesGetTheSameScoreAndTheirOwnGpus() {
    Ledger l = mirrored();
    PodDemand pod = PodDemand.share("ns/p", "p", 100, 100);
    Placement byClass = new Placement(l, new BinPackLike());
    List<String> names = List.of("a", "b");
    FilterResult f = byClass.filter(pod, names);
    assertThat(byClass.prioritize(pod, f.feasible())).containsEntry("a", 10).containsEntry("b", 10);
    assertThat(byClass.choose(pod, "a").orElseThrow().uuids()).containsExactly("a-1");
    assertThat(byClass.choose(pod, "b").orElseThrow().uuids()).containsExactly("b-0");
  }

  /** Prefers the GPU with the most compute used; node score from the used compute only. */
  private static final class BinPackLike implements PlacementPolicy, GpuPreference, StateScored {
    @Override
    public String name() {
      return "binpack-like";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      long used = 0;
      for (GpuUsage u : view.gpus()) {
        used += u.usedMilli();
      }
      return used;
    }

    @Override
    public double gpuScore(
        Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
      return usedMilli;
    }
  }
}
