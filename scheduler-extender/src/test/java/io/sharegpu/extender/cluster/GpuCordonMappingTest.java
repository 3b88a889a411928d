package io.sharegpu.extender.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuNodeAllocation;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.mapping.GpuNodeMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** spec.cordonedGpus of a GPUNode → core's cordoned GPUs, through the informer's reduced copy. */
class GpuCordonMappingTest {
  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final String XID = "Xid 79, card to be replaced";

  private static GPUNode cordoned(GPUNode g, GpuCordon... cordons) {
    GPUNodeSpec spec = new GPUNodeSpec(g.getMetadata().getName());
    spec.setCordonedGpus(List.of(cordons));
    g.setSpec(spec);
    return g;
  }

  @Test
  void mapsTheCordonedGpusWithTheirReasons() {
    GPUNode g =
        cordoned(
            Fixtures.gpuNode("n1", H100, 3, 81559),
            new GpuCordon(Fixtures.uuid("n1", 0), XID, "2026-12-05T07:00:00Z"),
            new GpuCordon(Fixtures.uuid("n1", 2), null, null));

    GpuNode node = GpuNodeMapper.toGpuNode(CachedObjects.gpuNode(g));

    assertThat(node.gpus())
        .extracting(Gpu::cordoned, Gpu::cordonReason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(true, XID),
            org.assertj.core.groups.Tuple.tuple(false, null),
            org.assertj.core.groups.Tuple.tuple(true, ""));
  }

  @Test
  void cordoningAMigParentCordonsItsInstances() {
    GpuStatus parent = new GpuStatus("GPU-parent", 0, "NVIDIA A100", 40960);
    GpuStatus mig = new GpuStatus("MIG-a", 1, "NVIDIA A100", 20096);
    mig.setParentUuid("GPU-parent");
    mig.setComputeMilli(428);
    mig.setMigProfile("3g.20gb");
    GpuStatus other = new GpuStatus("GPU-other", 2, "NVIDIA A100", 40960);
    GPUNode g =
        cordoned(
            Fixtures.gpuNode("n1", List.of(parent, mig, other)),
            new GpuCordon("GPU-parent", "Xid 48", null));

    GpuNode node = GpuNodeMapper.toGpuNode(g);

    assertThat(node.gpu("MIG-a").orElseThrow().cordonReason()).isEqualTo("Xid 48");
    assertThat(node.gpu("GPU-other").orElseThrow().cordoned()).isFalse();
  }

  @Test
  void reducedCopyKeepsCordonsAndTheAllocationSummary() {
    GPUNode g = cordoned(Fixtures.gpuNode("n1", H100, 1, 81559), new GpuCordon("GPU-x", XID, "t"));
    GpuNodeAllocation a = new GpuNodeAllocation();
    a.setFreeGpus(1);
    g.getStatus().setAllocation(a);

    GPUNode copy = CachedObjects.gpuNode(g);

    assertThat(copy.getSpec().getCordonedGpus())
        .extracting(GpuCordon::getUuid, GpuCordon::getReason)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("GPU-x", XID));
    assertThat(copy.getStatus().getAllocation().getFreeGpus()).isEqualTo(1);
  }

  @Test
  void cordonChangesTakeEffectAndUncordonCountsAsRoom() {
    ClusterFixture view = Fixtures.view("binpack");
    Fixtures.addNode(view, "n1", H100, 2, 81559);
    long ledgerVersion = view.withLedger(Ledger::version);
    long room = view.roomVersion();

    // the same GPUNode again (a heartbeat): nothing placement reads changed
    view.onGpuNode(Fixtures.gpuNode("n1", H100, 2, 81559));
    assertThat(view.withLedger(Ledger::version)).isEqualTo(ledgerVersion);

    view.onGpuNode(
        cordoned(
            Fixtures.gpuNode("n1", H100, 2, 81559),
            new GpuCordon(Fixtures.uuid("n1", 0), XID, null)));
    assertThat(view.withLedger(Ledger::version)).isGreaterThan(ledgerVersion);
    assertThat(view.<Boolean>withLedger(l -> l.nodeUsage("n1").isCordoned(0))).isTrue();

    view.onGpuNode(Fixtures.gpuNode("n1", H100, 2, 81559));
    assertThat(view.<Boolean>withLedger(l -> l.nodeUsage("n1").isCordoned(0))).isFalse();
    assertThat(view.roomVersion()).isGreaterThan(room);
  }
}
