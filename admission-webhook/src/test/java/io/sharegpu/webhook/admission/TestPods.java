package io.sharegpu.webhook.admission;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuEnv;
import io.sharegpu.api.ShareGpuResources;
import java.util.Map;

/** Small pod fixtures. */
final class TestPods {

  private TestPods() {}

  /** A pod as the API server would hand it to the webhook: one container asking for 250 milli. */
  static PodBuilder gpuPod(String milli) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("train-1")
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("default-scheduler")
        .addToContainers(
            new ContainerBuilder()
                .withName("main")
                .withImage("pytorch")
                .withNewResources()
                .withLimits(Map.of(ShareGpuResources.GPU_MILLI, new Quantity(milli)))
                .withRequests(Map.of(ShareGpuResources.GPU_MILLI, new Quantity(milli)))
                .endResources()
                .build())
        .endSpec();
  }

  static Pod plainPod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("web")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("default-scheduler")
        .addNewContainer()
        .withName("nginx")
        .withImage("nginx")
        .addNewEnv()
        .withName("NVIDIA_VISIBLE_DEVICES")
        .withValue("all")
        .endEnv()
        .endContainer()
        .endSpec()
        .build();
  }

  /** A GPU pod shaped as the SharePod controller makes it: everything already injected. */
  static Pod sharePodControllerPod() {
    Pod pod = gpuPod("500").build();
    pod.getSpec().setSchedulerName("sharegpu-scheduler");
    pod.getSpec()
        .getContainers()
        .get(0)
        .setEnv(new java.util.ArrayList<>(ShareGpuEnv.downwardApiEnv("main")));
    pod.getSpec()
        .getContainers()
        .get(0)
        .setVolumeMounts(new java.util.ArrayList<>(java.util.List.of(ShareGpuEnv.mpsPipeMount())));
    pod.getSpec()
        .setVolumes(new java.util.ArrayList<>(java.util.List.of(ShareGpuEnv.mpsPipeVolume())));
    return pod;
  }

  static EnvVar literal(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }
}
