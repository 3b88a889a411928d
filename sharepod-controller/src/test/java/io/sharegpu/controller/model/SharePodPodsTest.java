package io.sharegpu.controller.model;

import static io.sharegpu.controller.model.SharePods.SETTINGS;
import static io.sharegpu.controller.model.SharePods.aSharePod;
import static io.sharegpu.controller.model.SharePods.q;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuEnv;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.api.sharepod.SharePod;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SharePodPodsTest {

  @Test
  void notebookShareBecomesAPodWithResourcesLimitAnnotationEnvAndMount() {
    SharePod sp =
        aSharePod(
            "notebook",
            "0.25",
            g -> {
              g.setLimit(q("0.5"));
              g.setMemory(q("10Gi"));
              g.setModels(List.of("H100", "A100"));
            });

    Pod pod = valid(sp).pod();

    assertThat(pod.getMetadata().getName()).isEqualTo("notebook");
    assertThat(pod.getMetadata().getNamespace()).isEqualTo("team-a");
    assertThat(pod.getMetadata().getLabels())
        .containsEntry(ShareGpuAnnotations.SHAREPOD_LABEL, "notebook")
        .containsEntry("app", "demo");
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(ShareGpuAnnotations.GPU_LIMIT_MILLI, "500")
        .containsEntry(ShareGpuAnnotations.GPU_MODELS, "H100,A100")
        .containsEntry("team", "a");
    OwnerReference owner = pod.getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getApiVersion()).isEqualTo("sharegpu.io/v1alpha1");
    assertThat(owner.getKind()).isEqualTo("SharePod");
    assertThat(owner.getName()).isEqualTo("notebook");
    assertThat(owner.getUid()).isEqualTo("uid-notebook");
    assertThat(owner.getController()).isTrue();
    assertThat(owner.getBlockOwnerDeletion()).isTrue();
    assertThat(pod.getSpec().getSchedulerName()).isEqualTo("sharegpu-scheduler");
    assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Always");

    Container main = pod.getSpec().getContainers().get(0);
    assertThat(main.getResources().getLimits())
        .containsEntry(ShareGpuResources.GPU_MILLI, new Quantity("250"))
        .containsEntry(ShareGpuResources.GPU_MEMORY, new Quantity("10240"))
        .containsEntry("cpu", new Quantity("2"));
    assertThat(main.getEnv()).containsExactlyElementsOf(ShareGpuEnv.downwardApiEnv("main"));
    assertThat(main.getVolumeMounts()).containsExactly(ShareGpuEnv.mpsPipeMount());
    assertThat(pod.getSpec().getVolumes()).containsExactly(ShareGpuEnv.mpsPipeVolume());
  }

  @Test
  void thePodTakesTheTemplatesPriorityClassAndPreemptionPolicy() {
    SharePod sp = aSharePod("training", "1");
    sp.getSpec().getTemplate().getSpec().setPriorityClassName("production-training");
    sp.getSpec().getTemplate().getSpec().setPreemptionPolicy("Never");

    Pod pod = valid(sp).pod();

    assertThat(pod.getSpec().getPriorityClassName()).isEqualTo("production-training");
    assertThat(pod.getSpec().getPreemptionPolicy()).isEqualTo("Never");
    // the API server's Priority admission resolves the class into spec.priority
    assertThat(pod.getSpec().getPriority()).isNull();
  }

  @Test
  void thePodIsWhatTheExtenderParses() {
    SharePod sp =
        aSharePod(
            "notebook",
            "250m",
            g -> {
              g.setLimit(q("500m"));
              g.setMemory(q("10Gi"));
            });

    ParsedRequest parsed = PodGpuRequestParser.parse(valid(sp).pod());

    assertThat(parsed).isInstanceOf(ParsedRequest.Valid.class);
    assertThat(((ParsedRequest.Valid) parsed).request().containers())
        .containsExactly(new ContainerGpuRequest("main", 250, 10240, 500));
  }

  @Test
  void wholeGpusGetMultiplesOfAThousandAndNoLimitAnnotation() {
    SharePod sp = aSharePod("training", "2", g -> g.setLimit(q("2")));

    DesiredPod.Valid valid = valid(sp);

    Container main = valid.pod().getSpec().getContainers().get(0);
    assertThat(main.getResources().getLimits())
        .containsEntry(ShareGpuResources.GPU_MILLI, new Quantity("2000"))
        .doesNotContainKey(ShareGpuResources.GPU_MEMORY);
    assertThat(valid.pod().getMetadata().getAnnotations())
        .doesNotContainKey(ShareGpuAnnotations.GPU_LIMIT_MILLI);
    assertThat(valid.request()).isEqualTo(new GpuRequest(2000, 0, 0, List.of()));
  }

  @Test
  void onlyTheFirstContainerGetsTheGpuSidecarsStayAsTheyAre() {
    SharePod sp = aSharePod("with-sidecar", "0.5");
    Container sidecar = new ContainerBuilder().withName("log-shipper").withImage("busybox").build();
    sp.getSpec().getTemplate().getSpec().getContainers().add(sidecar);

    Pod pod = valid(sp).pod();

    assertThat(pod.getSpec().getContainers()).hasSize(2);
    assertThat(pod.getSpec().getContainers().get(1)).isEqualTo(sidecar);
  }

  @Test
  void doesNotChangeTheSharePod() {
    SharePod sp = aSharePod("notebook", "0.25", g -> g.setMemory(q("1Gi")));
    String before = sp.getSpec().getTemplate().toString();

    SharePodPods.desiredPod(sp, SETTINGS);
    SharePodPods.desiredPod(sp, SETTINGS);

    assertThat(sp.getSpec().getTemplate().toString()).isEqualTo(before);
    assertThat(SharePodPods.desiredPod(sp, SETTINGS))
        .isEqualTo(SharePodPods.desiredPod(sp, SETTINGS));
  }

  @Test
  void aChangedGpuRequestIsReportedAsDriftNotAppliedToThePod() {
    Pod created = valid(aSharePod("n", "0.25", g -> g.setMemory(q("8Gi")))).pod();
    Pod wanted = valid(aSharePod("n", "0.5", g -> g.setMemory(q("8Gi")))).pod();

    assertThat(SharePodPods.gpuDrift(created, wanted))
        .contains(
            "spec.gpu changed after pod n was created (gpu-milli 250 -> 500); it applies to the"
                + " next pod");
    assertThat(SharePodPods.gpuDrift(created, created)).isEmpty();
  }

  @Test
  void quantitiesTheApiServerRewroteAreNoDrift() {
    Pod wanted = valid(aSharePod("n", "2")).pod();
    Pod readBack = valid(aSharePod("n", "2")).pod();
    readBack
        .getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .getLimits()
        .put(ShareGpuResources.GPU_MILLI, new Quantity("2k"));

    assertThat(SharePodPods.gpuDrift(readBack, wanted)).isEmpty();
  }

  @Test
  void plainMemoryNumbersAreMibLikeOnThePodResource() {
    DesiredPod.Valid valid = valid(aSharePod("m", "0.5", g -> g.setMemory(q("4096"))));

    assertThat(valid.request().memoryMib()).isEqualTo(4096);
  }

  @Test
  void anotherMpsPipeDirectoryMovesTheVolumeMountAndVariable() {
    PodSettings settings = new PodSettings("gpu-sched", "/run/mps");
    DesiredPod desired = SharePodPods.desiredPod(aSharePod("n", "0.5"), settings);

    Pod pod = ((DesiredPod.Valid) desired).pod();
    Container main = pod.getSpec().getContainers().get(0);
    assertThat(pod.getSpec().getSchedulerName()).isEqualTo("gpu-sched");
    assertThat(pod.getSpec().getVolumes().get(0).getHostPath().getPath()).isEqualTo("/run/mps");
    assertThat(main.getVolumeMounts().get(0).getMountPath()).isEqualTo("/run/mps");
    assertThat(main.getEnv())
        .contains(new EnvVar(ShareGpuEnv.CUDA_MPS_PIPE_DIRECTORY, "/run/mps", null));
  }

  static Stream<Arguments> invalidSharePods() {
    return Stream.of(
        invalid("request that is not a quantity", "abc", g -> {}, t -> {}, "is not a quantity"),
        invalid("zero request", "0", g -> {}, t -> {}, "must be above 0"),
        invalid("finer than 1m", "0.0005", g -> {}, t -> {}, "finer than a thousandth"),
        invalid("share above one not whole", "1.5", g -> {}, t -> {}, "not a whole number"),
        invalid(
            "limit below request",
            "0.5",
            g -> g.setLimit(q("0.25")),
            t -> {},
            "spec.gpu.limit \"0.25\" is below spec.gpu.request \"0.5\""),
        invalid(
            "share limit above one",
            "0.5",
            g -> g.setLimit(q("2")),
            t -> {},
            "a share can use at most one whole GPU"),
        invalid(
            "memory in millibytes",
            "0.5",
            g -> g.setMemory(q("100m")),
            t -> {},
            "spec.gpu.memory \"100m\""),
        invalid(
            "bad model name",
            "0.5",
            g -> g.setModels(List.of("H 100")),
            t -> {},
            "spec.gpu.models[0] \"H 100\""),
        invalid(
            "template sets NVIDIA_VISIBLE_DEVICES",
            "0.5",
            g -> {},
            t ->
                t.getSpec()
                    .getContainers()
                    .get(0)
                    .setEnv(List.of(new EnvVar("NVIDIA_VISIBLE_DEVICES", "all", null))),
            "env NVIDIA_VISIBLE_DEVICES is set by ShareGPU"),
        invalid(
            "sidecar sets NVIDIA_VISIBLE_DEVICES",
            "0.5",
            g -> {},
            t ->
                t.getSpec()
                    .getContainers()
                    .add(
                        new ContainerBuilder()
                            .withName("side")
                            .addNewEnv()
                            .withName("NVIDIA_VISIBLE_DEVICES")
                            .withValue("all")
                            .endEnv()
                            .build()),
            "containers[1] (\"side\"): env NVIDIA_VISIBLE_DEVICES"),
        invalid(
            "template requests sharegpu.io resources",
            "0.5",
            g -> {},
            t ->
                t.getSpec()
                    .getContainers()
                    .get(0)
                    .getResources()
                    .getLimits()
                    .put("sharegpu.io/gpu-milli", q("100")),
            "resource sharegpu.io/gpu-milli comes from spec.gpu"),
        invalid(
            "template sets the limit annotation",
            "0.5",
            g -> {},
            t -> t.getMetadata().getAnnotations().put(ShareGpuAnnotations.GPU_LIMIT_MILLI, "900"),
            "sharegpu.io/gpu-limit-milli is set by ShareGPU from spec.gpu.limit"),
        invalid(
            "template forges an assignment",
            "0.5",
            g -> {},
            t -> t.getMetadata().getAnnotations().put(ShareGpuAnnotations.ASSIGNED_GPUS, "GPU-x"),
            "sharegpu.io/assigned-gpus is set by ShareGPU"),
        invalid(
            "template pins a node",
            "0.5",
            g -> {},
            t -> t.getSpec().setNodeName("node-1"),
            "would bypass the ShareGPU scheduler"),
        invalid(
            "template names another scheduler",
            "0.5",
            g -> {},
            t -> t.getSpec().setSchedulerName("default-scheduler"),
            "SharePod pods are scheduled by \"sharegpu-scheduler\""),
        invalid(
            "template without containers",
            "0.5",
            g -> {},
            t -> t.getSpec().setContainers(List.of()),
            "must list at least one container"),
        invalid(
            "template uses the MPS volume name",
            "0.5",
            g -> {},
            t ->
                t.getSpec()
                    .setVolumes(
                        List.of(
                            new VolumeBuilder()
                                .withName(ShareGpuEnv.MPS_PIPE_VOLUME)
                                .withNewEmptyDir()
                                .endEmptyDir()
                                .build())),
            "is reserved for the MPS pipe directory"),
        invalid(
            "template mounts over the MPS directory",
            "0.5",
            g -> {},
            t ->
                t.getSpec()
                    .getContainers()
                    .get(0)
                    .setVolumeMounts(
                        List.of(
                            new VolumeMountBuilder()
                                .withName("x")
                                .withMountPath("/tmp/nvidia-mps")
                                .build())),
            "the mount path /tmp/nvidia-mps is reserved"),
        invalid(
            "GPU container name too long for annotation keys",
            "0.5",
            g -> {},
            t ->
                t.getSpec()
                    .getContainers()
                    .get(0)
                    .setName("a-very-long-container-name-that-is-too-long"),
            "at most 34 characters"));
  }

  @ParameterizedTest
  @MethodSource("invalidSharePods")
  void invalidSharePodsGetEveryErrorAndNoPod(SharePod sp, String expected) {
    DesiredPod desired = SharePodPods.desiredPod(sp, SETTINGS);

    assertThat(desired).isInstanceOf(DesiredPod.Invalid.class);
    assertThat(String.join("\n", desired.errors())).contains(expected);
  }

  @Test
  void reportsAllErrorsAtOnce() {
    SharePod sp = aSharePod("x".repeat(70), "1.5", g -> g.setMemory(q("0")));

    List<String> errors = SharePodPods.desiredPod(sp, SETTINGS).errors();

    assertThat(errors).hasSize(3);
    assertThat(errors.get(0)).contains("at most 63 characters");
  }

  @Test
  void aMissingGpuOrTemplateIsAnError() {
    SharePod sp = aSharePod("n", "0.5");
    sp.getSpec().setGpu(null);
    sp.getSpec().setTemplate(null);

    assertThat(SharePodPods.desiredPod(sp, SETTINGS).errors())
        .containsExactly("spec.gpu is required", "spec.template.spec is required");
  }

  private static Arguments invalid(
      String name,
      String request,
      Consumer<io.sharegpu.api.sharepod.SharePodGpu> gpu,
      Consumer<io.fabric8.kubernetes.api.model.PodTemplateSpec> template,
      String expected) {
    SharePod sp = aSharePod("bad", request, gpu);
    template.accept(sp.getSpec().getTemplate());
    return Arguments.of(Named.of(name, sp), expected);
  }

  private static DesiredPod.Valid valid(SharePod sp) {
    DesiredPod desired = SharePodPods.desiredPod(sp, SETTINGS);
    assertThat(desired.errors()).isEmpty();
    return (DesiredPod.Valid) desired;
  }
}
