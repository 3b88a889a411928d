package io.sharegpu.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sharegpu.agent.gpu.GpuDevice;
import io.sharegpu.agent.gpu.GpuSnapshot;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class GpuNodePublisherIT {

  private static final long GIB = 1L << 30;

  KubernetesClient client;
  KubernetesMockServer server;

  private GpuNodePublisher publisher;

  @BeforeEach
  void createNode() {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("gpu-1")
                .endMetadata()
                .withNewStatus()
                .addToCapacity("cpu", new Quantity("16"))
                .addToAllocatable("cpu", new Quantity("16"))
                .endStatus()
                .build())
        .create();
    publisher = new GpuNodePublisher(client, "gpu-1");
  }

  private static GpuSnapshot twoGpusOneBroken() {
    return new GpuSnapshot(
        "580.159.04",
        List.of(
            GpuDevice.whole("GPU-a", 0, "NVIDIA H200", 140 * GIB, 0, 0),
            GpuDevice.whole("GPU-b", 1, "NVIDIA H200", 140 * GIB, 0, 0).unhealthy()),
        List.of());
  }

  @Test
  void createsTheGpuNodeOwnedByTheNodeAndWritesItsStatus() {
    publisher.publishStatus(
        GpuNodeStatusMapper.toStatus(
            twoGpusOneBroken(), "mps", Instant.parse("2026-12-03T06:00:00.5Z")));

    GPUNode gpuNode = client.resources(GPUNode.class).withName("gpu-1").get();
    assertThat(gpuNode.getSpec().getNodeName()).isEqualTo("gpu-1");
    assertThat(gpuNode.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getKind()).isEqualTo("Node"));
    assertThat(gpuNode.getStatus().getEnforcement()).isEqualTo("mps");
    assertThat(gpuNode.getStatus().getDriverVersion()).isEqualTo("580.159.04");
    assertThat(gpuNode.getStatus().getHeartbeatTime()).isEqualTo("2026-12-03T06:00:00Z");
    assertThat(gpuNode.getStatus().getGpus())
        .extracting(GpuStatus::getUuid, GpuStatus::getMemoryMiB, GpuStatus::isHealthy)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("GPU-a", 143360L, true),
            org.assertj.core.groups.Tuple.tuple("GPU-b", 143360L, false));
  }

  @Test
  void updatesTheStatusOfAnExistingGpuNode() {
    publisher.publishStatus(
        GpuNodeStatusMapper.toStatus(twoGpusOneBroken(), "none", Instant.EPOCH));
    GpuSnapshot one =
        new GpuSnapshot(
            "580.159.04",
            List.of(GpuDevice.whole("GPU-a", 0, "NVIDIA H200", 140 * GIB, 0, 0)),
            List.of());

    publisher.publishStatus(
        GpuNodeStatusMapper.toStatus(one, "mps", Instant.parse("2026-12-03T06:01:00Z")));

    GPUNode gpuNode = client.resources(GPUNode.class).withName("gpu-1").get();
    assertThat(gpuNode.getStatus().getGpus())
        .extracting(GpuStatus::getUuid)
        .containsExactly("GPU-a");
    assertThat(gpuNode.getStatus().getHeartbeatTime()).isEqualTo("2026-12-03T06:01:00Z");
    assertThat(client.resources(GPUNode.class).list().getItems()).hasSize(1);
  }

  @Test
  void leavesTheSpecAndTheExtendersAllocationAlone() {
    publisher.publishStatus(GpuNodeStatusMapper.toStatus(twoGpusOneBroken(), "mps", Instant.EPOCH));
    // an operator cordons GPU-a (spec), the extender writes its summary (status.allocation)
    GPUNode g = client.resources(GPUNode.class).withName("gpu-1").get();
    g.getSpec()
        .setCordonedGpus(List.of(new GpuCordon("GPU-a", "Xid 79, card to be replaced", "t")));
    client.resources(GPUNode.class).resource(g).update();
    client
        .resources(GPUNode.class)
        .withName("gpu-1")
        .status()
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"allocation\":{\"freeGpus\":1,\"pods\":1,\"cordonedGpus\":1}}}");

    // the agent's next heartbeat, and a restarted agent's first one (it finds the GPUNode)
    publisher.publishStatus(
        GpuNodeStatusMapper.toStatus(
            twoGpusOneBroken(), "none", Instant.parse("2026-12-03T06:02:00Z")));
    new GpuNodePublisher(client, "gpu-1")
        .publishStatus(
            GpuNodeStatusMapper.toStatus(
                twoGpusOneBroken(), "mps", Instant.parse("2026-12-03T06:03:00Z")));

    GPUNode after = client.resources(GPUNode.class).withName("gpu-1").get();
    assertThat(after.getSpec().getCordonedGpus())
        .extracting(GpuCordon::getUuid, GpuCordon::getReason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("GPU-a", "Xid 79, card to be replaced"));
    assertThat(after.getStatus().getAllocation()).isNotNull();
    assertThat(after.getStatus().getAllocation().getFreeGpus()).isEqualTo(1);
    assertThat(after.getStatus().getAllocation().getCordonedGpus()).isEqualTo(1);
    assertThat(after.getStatus().getHeartbeatTime()).isEqualTo("2026-12-03T06:03:00Z");
    assertThat(after.getStatus().getGpuCount()).isEqualTo(2);
  }

  @Test
  void writesTheDerivedCountsForThePrinterColumns() {
    publisher.publishStatus(GpuNodeStatusMapper.toStatus(twoGpusOneBroken(), "mps", Instant.EPOCH));

    var raw =
        client
            .genericKubernetesResources(
                io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.fromResourceType(
                    GPUNode.class))
            .withName("gpu-1")
            .get();
    @SuppressWarnings("unchecked")
    Map<String, Object> status = (Map<String, Object>) raw.getAdditionalProperties().get("status");
    assertThat(status).containsEntry("gpuCount", 2).containsEntry("healthyGpus", 1);
  }

  @Test
  void patchesCapacityAndAllocatableKeepingOtherResources() {
    GpuSnapshot snapshot = twoGpusOneBroken();

    boolean patched =
        publisher.publishCapacity(
            GpuNodeStatusMapper.capacity(snapshot), GpuNodeStatusMapper.allocatable(snapshot));

    assertThat(patched).isTrue();
    Node node = client.nodes().withName("gpu-1").get();
    assertThat(node.getStatus().getCapacity())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("2000"))
        .containsEntry("sharegpu.io/gpu-memory", new Quantity("286720"))
        .containsEntry("cpu", new Quantity("16"));
    assertThat(node.getStatus().getAllocatable())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("1000"))
        .containsEntry("sharegpu.io/gpu-memory", new Quantity("143360"))
        .containsEntry("cpu", new Quantity("16"));
    assertThat(
            publisher.publishCapacity(
                GpuNodeStatusMapper.capacity(snapshot), GpuNodeStatusMapper.allocatable(snapshot)))
        .as("nothing to do when the node already advertises the values")
        .isFalse();
  }

  @Test
  void reassertsCapacityWhenItVanishes() {
    GpuSnapshot snapshot = twoGpusOneBroken();
    publisher.publishCapacity(
        GpuNodeStatusMapper.capacity(snapshot), GpuNodeStatusMapper.allocatable(snapshot));
    Node wiped = client.nodes().withName("gpu-1").get();
    wiped.getStatus().setCapacity(Map.of("cpu", new Quantity("16")));
    wiped.getStatus().setAllocatable(Map.of("cpu", new Quantity("16")));
    client.nodes().resource(wiped).updateStatus();

    assertThat(
            publisher.publishCapacity(
                GpuNodeStatusMapper.capacity(snapshot), GpuNodeStatusMapper.allocatable(snapshot)))
        .isTrue();
    assertThat(client.nodes().withName("gpu-1").get().getStatus().getCapacity())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("2000"));
  }

  @Test
  void missingNodeIsAClearError() {
    GpuNodePublisher other = new GpuNodePublisher(client, "no-such-node");
    assertThatThrownBy(() -> other.publishCapacity(Map.of(), Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Node no-such-node does not exist");
  }
}
