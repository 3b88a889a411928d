package io.sharegpu.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShareGpuEnvTest {

  @Test
  void readsTheContainersAssignmentThroughTheDownwardApi() {
    List<EnvVar> env = ShareGpuEnv.downwardApiEnv("trainer");

    assertThat(env)
        .extracting(
            EnvVar::getName,
            e -> e.getValueFrom() == null ? null : e.getValueFrom().getFieldRef().getFieldPath(),
            EnvVar::getValue)
        .containsExactly(
            tuple(
                "NVIDIA_VISIBLE_DEVICES",
                "metadata.annotations['sharegpu.io/assigned-gpus.trainer']",
                null),
            tuple(
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                "metadata.annotations['sharegpu.io/mps-active-thread-percentage.trainer']",
                null),
            tuple(
                "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                "metadata.annotations['sharegpu.io/mps-pinned-mem-limit.trainer']",
                null),
            tuple("CUDA_MPS_PIPE_DIRECTORY", null, "/tmp/nvidia-mps"));
  }

  @Test
  void reservedNamesAreTheNamesShareGpuSets() {
    assertThat(ShareGpuEnv.reservedEnvNames())
        .containsExactlyInAnyOrderElementsOf(
            ShareGpuEnv.downwardApiEnv("x").stream().map(EnvVar::getName).toList());
  }

  @Test
  void mpsPipeIsAHostPathCreatedIfMissingAndMountedAtTheSamePath() {
    Volume volume = ShareGpuEnv.mpsPipeVolume();
    VolumeMount mount = ShareGpuEnv.mpsPipeMount();

    assertThat(volume.getName()).isEqualTo("sharegpu-mps-pipe");
    assertThat(volume.getHostPath().getPath()).isEqualTo("/tmp/nvidia-mps");
    assertThat(volume.getHostPath().getType()).isEqualTo("DirectoryOrCreate");
    assertThat(mount.getName()).isEqualTo(volume.getName());
    assertThat(mount.getMountPath()).isEqualTo("/tmp/nvidia-mps");
  }

  @Test
  void perContainerKeysAppendTheContainerName() {
    assertThat(ShareGpuAnnotations.forContainer(ShareGpuAnnotations.ASSIGNED_GPUS, "trainer"))
        .isEqualTo("sharegpu.io/assigned-gpus.trainer");
    assertThat(
            ShareGpuAnnotations.forContainer(
                    ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE,
                    "x".repeat(ShareGpuAnnotations.MAX_GPU_CONTAINER_NAME_LENGTH))
                .substring("sharegpu.io/".length()))
        .hasSize(63);
  }
}
