package io.sharegpu.core.placement;

import static io.sharegpu.core.Fixtures.A100;
import static io.sharegpu.core.Fixtures.A100_MIB;
import static io.sharegpu.core.Fixtures.H100;
import static io.sharegpu.core.Fixtures.h100Node;
import static io.sharegpu.core.Fixtures.node;
import static io.sharegpu.core.Fixtures.share;
import static io.sharegpu.core.Fixtures.uuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Placement} tells a {@link SupplyAware} policy the inventory when the nodes change. */
class SupplyAwarePlacementTest {

  /** Records every inventory it is given; scores all nodes alike. */
  private static final class Recorder implements PlacementPolicy, SupplyAware {
    final List<Map<String, Long>> calls = new ArrayList<>();
    final List<List<Long>> free = new ArrayList<>();

    @Override
    public void freeOnHostNodes(long freeCpuMilli, long freeGpuMilli) {
      free.add(List.of(freeCpuMilli, freeGpuMilli));
    }

    @Override
    public String name() {
      return "recorder";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      return 0;
    }

    @Override
    public void supply(Map<String, Long> computeMilliByModel) {
      calls.add(Map.copyOf(computeMilliByModel));
    }
  }

  private static PodDemand pod(String name) {
    return PodDemand.of("ns/" + name, "uid-" + name, GpuDemand.share("main", 100, 0));
  }

  @Test
  void theInventoryCountsHealthyGpusAndMigInstancesByModel() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 2));
    l.putNode(node("n2", 2, A100, A100_MIB));
    Gpu parent = new Gpu("GPU-n3-parent", 0, A100, A100_MIB, 1000, true, null, null);
    Gpu mig1 = new Gpu("MIG-n3-a", 0, A100, 20096, 428, true, "GPU-n3-parent", "3g.20gb");
    Gpu mig2 = new Gpu("MIG-n3-b", 1, A100, 9856, 142, true, "GPU-n3-parent", "1g.10gb");
    l.putNode(GpuNode.of("n3", List.of(parent, mig1, mig2)));
    Gpu sick = h100Node("n4", 1).gpus().get(0).withHealthy(false);
    l.putNode(GpuNode.of("n4", List.of(sick)));
    Recorder r = new Recorder();
    new Placement(l, r).place(pod("p"));
    assertThat(r.calls).containsExactly(Map.of(H100, 2000L, A100, 2000L + 428 + 142));
  }

  @Test
  void theInventoryIsGivenAgainOnlyWhenNodesChange() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 2));
    Recorder r = new Recorder();
    Placement p = new Placement(l, r);
    p.place(pod("a"));
    l.commit(share("x", "n1", uuid("n1", 0), 500, 1000));
    p.filter(pod("b"), List.of("n1"));
    p.prioritize(pod("b"), List.of("n1"));
    assertThat(r.calls).hasSize(1);
    l.putNode(node("n2", 1, A100, A100_MIB));
    p.place(pod("c"));
    assertThat(r.calls).containsExactly(Map.of(H100, 2000L), Map.of(H100, 2000L, A100, 1000L));
    l.removeNode("n1");
    p.choose(pod("d"), "n2");
    assertThat(r.calls).last().isEqualTo(Map.of(A100, 1000L));
  }

  @Test
  void whatIsFreeOnNodesThatReportHostCpuIsGivenWhenTheLedgerChanges() {
    Ledger l = new Ledger();
    GpuNode withCpu = h100Node("n1", 2);
    l.putNode(new GpuNode("n1", withCpu.gpus(), 32_000, 0));
    l.putNode(h100Node("n2", 2)); // reports no host CPU: not counted
    Recorder r = new Recorder();
    Placement p = new Placement(l, r);
    p.filter(pod("a"), List.of("n1", "n2"));
    l.commit(share("x", "n1", uuid("n1", 0), 400, 1000), 6000, 0);
    p.filter(pod("b"), List.of("n1", "n2"));
    p.prioritize(pod("b"), List.of("n1", "n2"));
    assertThat(r.free).containsExactly(List.of(32_000L, 2000L), List.of(26_000L, 1600L));
  }

  @Test
  void nothingIsSummedWhileNoNodeReportsHostCpu() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 2));
    Recorder r = new Recorder();
    Placement p = new Placement(l, r);
    p.place(pod("a"));
    p.filter(pod("b"), List.of("n1"));
    assertThat(r.free).isEmpty();
  }
}
