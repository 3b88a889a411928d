package io.sharegpu.controller.model;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodGpu;
import io.sharegpu.api.sharepod.SharePodSpec;
import java.util.List;
import java.util.function.Consumer;

/** Test fixtures: SharePods built in a line. */
public final class SharePods {

  public static final PodSettings SETTINGS =
      new PodSettings("sharegpu-scheduler", "/tmp/nvidia-mps");

  private SharePods() {}

  /** Returns SharePod ns/name with request (in GPUs) and a one-container template. */
  public static SharePod aSharePod(String name, String request) {
    return aSharePod(name, request, gpu -> {});
  }

  public static SharePod aSharePod(String name, String request, Consumer<SharePodGpu> gpu) {
    SharePodGpu g = new SharePodGpu(new Quantity(request));
    gpu.accept(g);
    SharePod sp = new SharePod();
    sp.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace("team-a")
            .withUid("uid-" + name)
            .withGeneration(1L)
            .build());
    sp.setSpec(new SharePodSpec(g, template()));
    return sp;
  }

  /** Returns a template with container "main" (and label app=demo). */
  public static PodTemplateSpec template() {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .addToLabels("app", "demo")
        .addToAnnotations("team", "a")
        .endMetadata()
        .withNewSpec()
        .withContainers(
            new ContainerBuilder()
                .withName("main")
                .withImage("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime")
                .withCommand(List.of("sleep", "infinity"))
                .withNewResources()
                .addToLimits("cpu", new Quantity("2"))
                .endResources()
                .build())
        .withRestartPolicy("Always")
        .endSpec()
        .build();
  }

  public static Quantity q(String s) {
    return new Quantity(s);
  }
}
