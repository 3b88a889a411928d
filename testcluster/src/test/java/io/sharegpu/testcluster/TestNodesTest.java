package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import org.junit.jupiter.api.Test;

class TestNodesTest {

  @Test
  void wholeGpusAdvertiseAThousandMilliAndTheirMemoryEach() {
    TestNodes.Builder n1 = TestNodes.gpuNode("n1").gpus(8, "NVIDIA H100 80GB HBM3", 81559);

    Node node = n1.node();
    assertThat(node.getStatus().getCapacity())
        .containsEntry(ShareGpuResources.GPU_MILLI, new Quantity("8000"))
        .containsEntry(ShareGpuResources.GPU_MEMORY, new Quantity("652472"))
        .containsEntry("cpu", new Quantity("64"))
        .containsEntry("memory", new Quantity("512Gi"));
    assertThat(node.getStatus().getAllocatable()).isEqualTo(node.getStatus().getCapacity());
    assertThat(node.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", "n1");
    assertThat(node.getStatus().getConditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getType()).isEqualTo("Ready");
              assertThat(c.getStatus()).isEqualTo("True");
            });
    assertThat(n1.gpuStatuses())
        .extracting(GpuStatus::getUuid)
        .containsExactly(
            "GPU-n1-0",
            "GPU-n1-1",
            "GPU-n1-2",
            "GPU-n1-3",
            "GPU-n1-4",
            "GPU-n1-5",
            "GPU-n1-6",
            "GPU-n1-7");
  }

  @Test
  void migInstancesOfOneGpuAdvertiseOneGpuOfCompute() {
    TestNodes.Builder mig =
        TestNodes.gpuNode("mig").migInstances(2, "NVIDIA A100 MIG 3g.40gb", "3g.40gb", 428, 40192);

    assertThat(mig.capacity())
        .containsEntry(ShareGpuResources.GPU_MILLI, new Quantity("1000"))
        .containsEntry(ShareGpuResources.GPU_MEMORY, new Quantity("80384"));
    assertThat(mig.gpuStatuses())
        .allSatisfy(
            g -> {
              assertThat(g.getParentUuid()).isEqualTo("GPU-mig-parent");
              assertThat(g.getMigProfile()).isEqualTo("3g.40gb");
              assertThat(g.getComputeMilli()).isEqualTo(428);
            });
  }

  @Test
  void theGpuNodeCarriesTheGpusWithMpsAndLabelsAndUuidsAreTheCallers() {
    TestNodes.Builder b =
        TestNodes.gpuNode("t4")
            .host("32", "256Gi")
            .label("zone", "a")
            .uuids(i -> "GPU-custom-" + i)
            .gpus(2, "Tesla T4", 15360);

    GPUNode g = b.gpuNodeResource();
    assertThat(g.getMetadata().getName()).isEqualTo("t4");
    assertThat(g.getStatus().getEnforcement()).isEqualTo(GPUNodeStatus.ENFORCEMENT_MPS);
    assertThat(g.getStatus().getGpus())
        .extracting(GpuStatus::getUuid, GpuStatus::getIndex)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("GPU-custom-0", 0),
            org.assertj.core.groups.Tuple.tuple("GPU-custom-1", 1));
    assertThat(b.node().getMetadata().getLabels()).containsEntry("zone", "a");
    assertThat(b.capacity()).containsEntry("cpu", new Quantity("32"));
  }

  @Test
  void nvidiaShapedUuidsDifferByNodeAndIndex() {
    assertThat(TestNodes.nvidiaUuid("n1", 3))
        .matches("GPU-[0-9a-f]{8}-0000-0000-0000-000000000003");
    assertThat(TestNodes.nvidiaUuid("n1", 0)).isNotEqualTo(TestNodes.nvidiaUuid("n2", 0));
  }
}
