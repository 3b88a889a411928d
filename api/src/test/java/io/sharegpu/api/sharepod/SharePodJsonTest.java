package io.sharegpu.api.sharepod;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** SharePod's wire format, compared with src/test/resources/golden/sharepod.json. */
class SharePodJsonTest {

  static String golden(String name) throws IOException {
    try (InputStream in = SharePodJsonTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static JsonNode tree(String json) {
    return Serialization.jsonMapper().readTree(json);
  }

  static SharePod notebook() {
    SharePodGpu gpu = new SharePodGpu(new Quantity("0.25"));
    gpu.setLimit(new Quantity("0.5"));
    gpu.setMemory(new Quantity("10Gi"));
    gpu.setModels(List.of("H100"));
    SharePod sharePod = new SharePod();
    sharePod.setMetadata(
        new ObjectMetaBuilder().withName("notebook-alice").withNamespace("team-a").build());
    sharePod.setSpec(
        new SharePodSpec(
            gpu,
            new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("app", "notebook")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("notebook")
                .withImage("jupyter/base-notebook")
                .endContainer()
                .endSpec()
                .build()));
    SharePodStatus status = new SharePodStatus();
    status.setPhase(SharePodStatus.PHASE_RUNNING);
    status.setPodName("notebook-alice");
    status.setNodeName("gpu-node-1");
    status.setGpus(
        List.of(new SharePodGpuStatus("GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64", "NVIDIA H100")));
    status.setGpuList("GPU-e4aea6a9-1b46-d027-e71f-ce46fc4b6b64");
    status.setMemoryMiB(10240L);
    status.setObservedGeneration(1L);
    status.setConditions(
        List.of(
            new ConditionBuilder()
                .withType(SharePodConditions.SCHEDULED)
                .withStatus("True")
                .withReason(SharePodConditions.REASON_BOUND)
                .withMessage("bound to gpu-node-1")
                .withLastTransitionTime("2026-12-02T22:00:00Z")
                .withObservedGeneration(1L)
                .build()));
    sharePod.setStatus(status);
    return sharePod;
  }

  @Test
  void serializesToTheGoldenJson() throws IOException {
    assertThat(tree(Serialization.asJson(notebook()))).isEqualTo(tree(golden("sharepod.json")));
  }

  @Test
  void goldenJsonRoundTrips() throws IOException {
    SharePod read = Serialization.unmarshal(golden("sharepod.json"), SharePod.class);

    assertThat(read.getApiVersion()).isEqualTo("sharegpu.io/v1alpha1");
    assertThat(read.getKind()).isEqualTo("SharePod");
    assertThat(read.getSpec().getGpu().getRequest()).isEqualTo(new Quantity("250m"));
    assertThat(read.getSpec().getGpu().getMemory()).isEqualTo(new Quantity("10Gi"));
    assertThat(read.getStatus().getGpus())
        .extracting(SharePodGpuStatus::getModel)
        .containsExactly("NVIDIA H100");
    assertThat(tree(Serialization.asJson(read))).isEqualTo(tree(golden("sharepod.json")));
  }

  @Test
  void requestMayBeAnInteger() {
    SharePod read =
        Serialization.unmarshal(
            "{\"apiVersion\":\"sharegpu.io/v1alpha1\",\"kind\":\"SharePod\","
                + "\"spec\":{\"gpu\":{\"request\":2}}}",
            SharePod.class);

    assertThat(read.getSpec().getGpu().getRequest()).isEqualTo(new Quantity("2"));
  }
}
