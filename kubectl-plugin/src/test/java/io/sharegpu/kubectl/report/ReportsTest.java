package io.sharegpu.kubectl.report;

import static io.sharegpu.kubectl.Fixtures.assignedPod;
import static io.sharegpu.kubectl.Fixtures.gpuNode;
import static io.sharegpu.kubectl.Fixtures.uuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.kubectl.Fixtures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportsTest {

  @Test
  void sumsTheSharesAndMemoryOfThePodsOnEachGpu() {
    GPUNode n = gpuNode("n1", 2);
    List<Pod> pods =
        List.of(
            assignedPod("ml", "a", "n1", 250, 10240, 500, uuid("n1", 0)),
            assignedPod("ml", "b", "n1", 500, 20480, 500, uuid("n1", 0)),
            assignedPod("ml", "other-node", "n9", 100, 1024, 100, "GPU-elsewhere"));
    NodeReport report = Reports.nodes(List.of(n), pods).get(0);
    GpuReport g0 = report.gpus().get(0);
    assertThat(g0.usedMilli()).isEqualTo(750);
    assertThat(g0.usedMemoryMib()).isEqualTo(30720);
    assertThat(g0.pods()).extracting(PodOnGpu::key).containsExactly("ml/a", "ml/b");
    assertThat(g0.pods().get(0).limitMilli()).isEqualTo(500);
    assertThat(report.gpus().get(1).usedMilli()).isZero();
    assertThat(report.gpus().get(1).pods()).isEmpty();
  }

  @Test
  void wholeGpusTakeAllComputeAndMemoryOfEachGpu() {
    GPUNode n = gpuNode("n1", 2);
    Pod whole = assignedPod("ml", "w", "n1", 2000, 0, 1000, uuid("n1", 0), uuid("n1", 1));
    NodeReport report = Reports.nodes(List.of(n), List.of(whole)).get(0);
    assertThat(report.gpus())
        .allSatisfy(
            g -> {
              assertThat(g.usedMilli()).isEqualTo(1000);
              assertThat(g.usedMemoryMib()).isEqualTo(Fixtures.H100_MIB);
            });
  }

  @Test
  void finishedPodsHoldNothingAndUnassignedPodsAreLeftOut() {
    Pod done = assignedPod("ml", "done", "n1", 250, 1024, 250, uuid("n1", 0));
    done.getStatus().setPhase("Succeeded");
    Pod pending = Fixtures.pod("ml", "pending", "", 250, 1024, Map.of());
    assertThat(Reports.nodes(List.of(gpuNode("n1", 1)), List.of(done, pending)).get(0).gpus())
        .allSatisfy(g -> assertThat(g.pods()).isEmpty());
    assertThat(Reports.pods(List.of(done, pending))).isEmpty();
  }

  @Test
  void podRowsCarryShareLimitMemoryAndMpsCaps() {
    Pod p = assignedPod("ml", "nb", "n1", 250, 10240, 500, uuid("n1", 0));
    PodReport report = Reports.pods(List.of(p)).get(0);
    assertThat(report.node()).isEqualTo("n1");
    PodReport.ContainerRow row = report.containers().get(0);
    assertThat(row.gpuUuids()).containsExactly(uuid("n1", 0));
    assertThat(row.shareMilli()).isEqualTo(250);
    assertThat(row.limitMilli()).isEqualTo(500);
    assertThat(row.memoryMib()).isEqualTo(10240);
    assertThat(row.mpsThreadPercentage()).isEqualTo("50");
    assertThat(row.mpsPinnedMemLimit()).isEqualTo("0=10240M");
  }

  @Test
  void cordonsMigInstancesAndHealthComeFromTheGpuNode() {
    GPUNode n = gpuNode("n1", 1);
    GpuStatus mig = new GpuStatus("MIG-1", 1, "NVIDIA A100-SXM4-80GB MIG 3g.40gb", 40192);
    mig.setMigProfile("3g.40gb");
    mig.setParentUuid("GPU-parent");
    mig.setComputeMilli(428);
    mig.setHealthy(false);
    n.getStatus().getGpus().add(mig);
    Fixtures.cordoned(n, "MIG-1", "Xid 79");
    List<GpuReport> gpus = Reports.nodes(List.of(n), List.of()).get(0).gpus();
    assertThat(gpus.get(0).cordoned()).isFalse();
    assertThat(gpus.get(1).cordon())
        .isEqualTo(new GpuReport.Cordon("Xid 79", "2026-12-05T08:00:00Z"));
    assertThat(gpus.get(1).migProfile()).isEqualTo("3g.40gb");
    assertThat(gpus.get(1).healthy()).isFalse();
    assertThat(gpus.get(1).computeMilli()).isEqualTo(428);
  }
}
