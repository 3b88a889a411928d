package io.sharegpu.api;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.List;

/**
 * The environment a GPU container needs: variables read through the downward API from the
 * assignment annotations (resolved by the kubelet at container start, i.e. after bind), and the MPS
 * pipe volume. The SharePod controller and the admission webhook inject these.
 */
public final class ShareGpuEnv {

  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  public static final String CUDA_MPS_ACTIVE_THREAD_PERCENTAGE =
      "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";
  public static final String CUDA_MPS_PINNED_DEVICE_MEM_LIMIT = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT";
  public static final String CUDA_MPS_PIPE_DIRECTORY = "CUDA_MPS_PIPE_DIRECTORY";

  /** Name of the MPS pipe volume and its mount. */
  public static final String MPS_PIPE_VOLUME = "sharegpu-mps-pipe";

  private ShareGpuEnv() {}

  /**
   * Returns the variables for one container: {@code NVIDIA_VISIBLE_DEVICES}, {@code
   * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} and {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} from the
   * container's assignment annotations, e.g. {@code
   * metadata.annotations['sharegpu.io/assigned-gpus.trainer']}, and {@code
   * CUDA_MPS_PIPE_DIRECTORY}.
   */
  public static List<EnvVar> downwardApiEnv(String container) {
    return List.of(
        fromAnnotation(
            NVIDIA_VISIBLE_DEVICES,
            ShareGpuAnnotations.forContainer(ShareGpuAnnotations.ASSIGNED_GPUS, container)),
        fromAnnotation(
            CUDA_MPS_ACTIVE_THREAD_PERCENTAGE,
            ShareGpuAnnotations.forContainer(
                ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE, container)),
        fromAnnotation(
            CUDA_MPS_PINNED_DEVICE_MEM_LIMIT,
            ShareGpuAnnotations.forContainer(ShareGpuAnnotations.MPS_PINNED_MEM_LIMIT, container)),
        new EnvVarBuilder()
            .withName(CUDA_MPS_PIPE_DIRECTORY)
            .withValue(ShareGpuAnnotations.MPS_PIPE_DIRECTORY)
            .build());
  }

  /** Returns the host-path volume of the MPS pipe directory (created if missing). */
  public static Volume mpsPipeVolume() {
    return new VolumeBuilder()
        .withName(MPS_PIPE_VOLUME)
        .withNewHostPath()
        .withPath(ShareGpuAnnotations.MPS_PIPE_DIRECTORY)
        .withType("DirectoryOrCreate")
        .endHostPath()
        .build();
  }

  /** Returns the mount of {@link #mpsPipeVolume()} at the same path inside the container. */
  public static VolumeMount mpsPipeMount() {
    return new VolumeMountBuilder()
        .withName(MPS_PIPE_VOLUME)
        .withMountPath(ShareGpuAnnotations.MPS_PIPE_DIRECTORY)
        .build();
  }

  /** Returns the variable names ShareGPU sets, which a user must not set on a GPU container. */
  public static List<String> reservedEnvNames() {
    return List.of(
        NVIDIA_VISIBLE_DEVICES,
        CUDA_MPS_ACTIVE_THREAD_PERCENTAGE,
        CUDA_MPS_PINNED_DEVICE_MEM_LIMIT,
        CUDA_MPS_PIPE_DIRECTORY);
  }

  private static EnvVar fromAnnotation(String name, String annotation) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withApiVersion("v1")
        .withFieldPath("metadata.annotations['" + annotation + "']")
        .endFieldRef()
        .endValueFrom()
        .build();
  }
}
