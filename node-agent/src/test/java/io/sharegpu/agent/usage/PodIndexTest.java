package io.sharegpu.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class PodIndexTest {

  private static final String CID =
      "4f2c9d1e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d";

  private static final Pod POD =
      new PodBuilder()
          .withNewMetadata()
          .withName("train-1")
          .withNamespace("team-a")
          .endMetadata()
          .withNewStatus()
          .addNewContainerStatus()
          .withName("sidecar")
          .withContainerID("containerd://" + "0".repeat(64))
          .endContainerStatus()
          .addNewContainerStatus()
          .withName("trainer")
          .withContainerID("containerd://" + CID)
          .endContainerStatus()
          .endStatus()
          .build();

  @Test
  void findsTheContainerByItsRuntimeId() {
    assertThat(PodIndex.containerName(POD, CID)).isEqualTo("trainer");
  }

  @Test
  void unknownOrMissingIdGivesAnEmptyName() {
    assertThat(PodIndex.containerName(POD, "f".repeat(64))).isEmpty();
    assertThat(PodIndex.containerName(POD, "")).isEmpty();
    assertThat(PodIndex.containerName(new Pod(), CID)).isEmpty();
  }
}
