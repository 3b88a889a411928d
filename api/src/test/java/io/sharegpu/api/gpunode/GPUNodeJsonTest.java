package io.sharegpu.api.gpunode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** GPUNode's wire format, compared with src/test/resources/golden/gpunode.json. */
class GPUNodeJsonTest {

  private static String golden() throws IOException {
    try (InputStream in = GPUNodeJsonTest.class.getResourceAsStream("/golden/gpunode.json")) {
      assertThat(in).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static JsonNode tree(String json) {
    return Serialization.jsonMapper().readTree(json);
  }

  static GPUNode h200Node() {
    GpuStatus full =
        new GpuStatus("GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64", 0, "NVIDIA H200", 143771);
    GpuStatus mig =
        new GpuStatus("MIG-5c8a2f7e-0d8b-5b39-a1b2-0123456789ab", 1, "NVIDIA H200", 16384);
    mig.setComputeMilli(142);
    mig.setMigProfile("1g.18gb");
    mig.setParentUuid("GPU-0b0c0d0e-0000-1111-2222-333344445555");
    mig.setHealthy(false);
    GPUNodeStatus status = new GPUNodeStatus();
    status.setGpus(List.of(full, mig));
    status.setDriverVersion("570.124.06");
    status.setEnforcement(GPUNodeStatus.ENFORCEMENT_MPS);
    status.setHeartbeatTime("2026-12-02T22:00:00Z");
    GpuNodeAllocation allocation = new GpuNodeAllocation();
    allocation.setFreeGpus(1);
    allocation.setAllocatedMilli(142);
    allocation.setAllocatedMemoryMiB(16384);
    allocation.setPods(1);
    allocation.setCordonedGpus(1);
    status.setAllocation(allocation);
    status.setConditions(
        List.of(
            new ConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withReason("AgentReporting")
                .withLastTransitionTime("2026-12-02T21:00:00Z")
                .build()));
    GPUNode node = new GPUNode();
    node.setMetadata(new ObjectMetaBuilder().withName("gpu-node-1").build());
    GPUNodeSpec spec = new GPUNodeSpec("gpu-node-1");
    spec.setCordonedGpus(
        List.of(
            new GpuCordon(
                "GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64",
                "Xid 79, card to be replaced",
                "2026-12-02T22:30:00Z")));
    node.setSpec(spec);
    node.setStatus(status);
    return node;
  }

  @Test
  void serializesToTheGoldenJson() throws IOException {
    assertThat(tree(Serialization.asJson(h200Node()))).isEqualTo(tree(golden()));
  }

  @Test
  void goldenJsonRoundTrips() throws IOException {
    GPUNode read = Serialization.unmarshal(golden(), GPUNode.class);

    assertThat(read.getSpec().getNodeName()).isEqualTo("gpu-node-1");
    assertThat(read.getSpec().getCordonedGpus())
        .extracting(GpuCordon::getUuid, GpuCordon::getReason)
        .containsExactly(
            tuple("GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64", "Xid 79, card to be replaced"));
    assertThat(read.getStatus().getGpus())
        .extracting(GpuStatus::getIndex, GpuStatus::getComputeMilli, GpuStatus::isHealthy)
        .containsExactly(tuple(0, 1000, true), tuple(1, 142, false));
    assertThat(tree(Serialization.asJson(read))).isEqualTo(tree(golden()));
  }

  @Test
  void omittedFieldsTakeTheirDefaults() {
    GPUNode read =
        Serialization.unmarshal(
            "{\"apiVersion\":\"sharegpu.io/v1alpha1\",\"kind\":\"GPUNode\","
                + "\"status\":{\"gpus\":[{\"uuid\":\"GPU-1\"}]}}",
            GPUNode.class);

    assertThat(read.getStatus().getGpus().get(0).isHealthy()).isTrue();
    assertThat(read.getStatus().getGpus().get(0).getComputeMilli()).isEqualTo(1000);
    assertThat(read.getStatus().getConditions()).isEmpty();
  }
}
