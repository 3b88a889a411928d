package io.sharegpu.webhook.admission;

import static io.sharegpu.webhook.admission.TestPods.gpuPod;
import static io.sharegpu.webhook.admission.TestPods.literal;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.sharegpu.api.ShareGpuEnv;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodAdmissionPolicyTest {

  private final PodAdmissionPolicy policy = PodAdmissionPolicy.withDefaults();

  @Test
  void passesPodWithoutGpuRequestUntouchedEvenWithReservedEnv() {
    assertThat(policy.decide(TestPods.plainPod())).isInstanceOf(AdmissionDecision.NotGpu.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidRequests")
  void deniesInvalidRequestWithTheParserMessages(String name, Pod pod) {
    List<String> parserErrors = ((ParsedRequest.Invalid) PodGpuRequestParser.parse(pod)).errors();

    AdmissionDecision decision = policy.decide(pod);

    assertThat(decision).isInstanceOf(AdmissionDecision.Denied.class);
    assertThat(((AdmissionDecision.Denied) decision).reasons()).isEqualTo(parserErrors);
  }

  static Stream<Arguments> invalidRequests() {
    return Stream.of(
        Arguments.of("1500 milli", gpuPod("1500").build()),
        Arguments.of("zero milli", gpuPod("0").build()),
        Arguments.of(
            "limit below request",
            gpuPod("500")
                .editMetadata()
                .addToAnnotations("sharegpu.io/gpu-limit-milli", "250")
                .endMetadata()
                .build()),
        Arguments.of(
            "init container",
            gpuPod("250")
                .editSpec()
                .addNewInitContainer()
                .withName("setup")
                .withNewResources()
                .addToLimits("sharegpu.io/gpu-milli", new Quantity("100"))
                .endResources()
                .endInitContainer()
                .endSpec()
                .build()));
  }

  @Test
  void deniesInvalidRequestWithMessageNamingContainerAndValue() {
    AdmissionDecision.Denied denied =
        (AdmissionDecision.Denied) policy.decide(gpuPod("1500").build());

    assertThat(denied.message())
        .isEqualTo(
            "container \"main\": sharegpu.io/gpu-milli \"1500\" is >= 1000 but not a multiple of"
                + " 1000 (whole GPUs are 1000, 2000, ...)");
  }

  @Test
  void deniesUnknownShareGpuResource() {
    Pod pod = gpuPod("250").build();
    pod.getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .getLimits()
        .put("sharegpu.io/gpus", new Quantity("1"));

    assertThat(reasons(policy.decide(pod)))
        .containsExactly(
            "container \"main\": unknown resource sharegpu.io/gpus (ShareGPU offers"
                + " sharegpu.io/gpu-milli and sharegpu.io/gpu-memory)");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("selfChosenGpus")
  void deniesPodThatChoosesItsOwnGpu(String name, Pod pod, String reason) {
    assertThat(reasons(policy.decide(pod))).containsExactly(reason);
  }

  static Stream<Arguments> selfChosenGpus() {
    String main = "container \"main\" sets ";
    String gpuTail =
        " itself: ShareGPU chooses the GPU and sets this variable from the assignment"
            + " annotations; remove it from the pod";
    return Stream.of(
        Arguments.of(
            "literal NVIDIA_VISIBLE_DEVICES",
            withEnv(gpuPod("250").build(), literal("NVIDIA_VISIBLE_DEVICES", "GPU-1234")),
            main + "NVIDIA_VISIBLE_DEVICES" + gpuTail),
        Arguments.of(
            "literal CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
            withEnv(gpuPod("250").build(), literal("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "100")),
            main + "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" + gpuTail),
        Arguments.of(
            "other CUDA_MPS_ variable",
            withEnv(gpuPod("250").build(), literal("CUDA_MPS_LOG_DIRECTORY", "/tmp")),
            main + "CUDA_MPS_LOG_DIRECTORY" + gpuTail),
        Arguments.of(
            "NVIDIA_VISIBLE_DEVICES from a secret",
            withEnv(
                gpuPod("250").build(),
                new EnvVarBuilder()
                    .withName("NVIDIA_VISIBLE_DEVICES")
                    .withNewValueFrom()
                    .withNewSecretKeyRef("gpu", "mine", false)
                    .endValueFrom()
                    .build()),
            main + "NVIDIA_VISIBLE_DEVICES" + gpuTail),
        Arguments.of(
            "downward-API form of another container",
            withEnv(gpuPod("250").build(), ShareGpuEnv.downwardApiEnv("other").get(0)),
            main + "NVIDIA_VISIBLE_DEVICES" + gpuTail),
        Arguments.of(
            "downward-API form on the pod-level annotation",
            withEnv(
                gpuPod("250").build(),
                new EnvVarBuilder()
                    .withName("NVIDIA_VISIBLE_DEVICES")
                    .withNewValueFrom()
                    .withNewFieldRef("v1", "metadata.annotations['sharegpu.io/assigned-gpus']")
                    .endValueFrom()
                    .build()),
            main + "NVIDIA_VISIBLE_DEVICES" + gpuTail),
        Arguments.of(
            "sidecar without GPU sets NVIDIA_VISIBLE_DEVICES",
            new PodBuilder(gpuPod("250").build())
                .editSpec()
                .addNewContainer()
                .withName("sidecar")
                .addToEnv(literal("NVIDIA_VISIBLE_DEVICES", "all"))
                .endContainer()
                .endSpec()
                .build(),
            "container \"sidecar\" sets NVIDIA_VISIBLE_DEVICES itself: ShareGPU chooses the GPU"
                + " and sets this variable only in containers that request sharegpu.io/gpu-milli;"
                + " remove it"),
        Arguments.of(
            "init container copies the downward-API form",
            new PodBuilder(gpuPod("250").build())
                .editSpec()
                .addNewInitContainer()
                .withName("main")
                .addToEnv(ShareGpuEnv.downwardApiEnv("main").get(0))
                .endInitContainer()
                .endSpec()
                .build(),
            "container \"main\" sets NVIDIA_VISIBLE_DEVICES itself: ShareGPU chooses the GPU and"
                + " sets this variable only in containers that request sharegpu.io/gpu-milli;"
                + " remove it"),
        Arguments.of(
            "spec.nodeName",
            new PodBuilder(gpuPod("250").build())
                .editSpec()
                .withNodeName("gpu-1")
                .endSpec()
                .build(),
            "spec.nodeName is set to \"gpu-1\": a pod requesting sharegpu.io resources must be"
                + " placed by sharegpu-scheduler, which assigns its GPUs; remove spec.nodeName (use"
                + " a nodeSelector instead)"),
        Arguments.of(
            "assignment annotation",
            new PodBuilder(gpuPod("250").build())
                .editMetadata()
                .addToAnnotations("sharegpu.io/assigned-gpus.main", "GPU-1234")
                .endMetadata()
                .build(),
            "annotation sharegpu.io/assigned-gpus.main is written by the ShareGPU scheduler when"
                + " it binds the pod; remove it"),
        Arguments.of(
            "another scheduler",
            new PodBuilder(gpuPod("250").build())
                .editSpec()
                .withSchedulerName("volcano")
                .endSpec()
                .build(),
            "spec.schedulerName is \"volcano\", but only \"sharegpu-scheduler\" assigns GPUs to"
                + " pods requesting sharegpu.io resources; set it to \"sharegpu-scheduler\" or leave"
                + " it empty"),
        Arguments.of(
            "own volume at the MPS pipe path",
            withMount(gpuPod("250").build(), "scratch", "/tmp/nvidia-mps"),
            "container \"main\" mounts \"scratch\" at /tmp/nvidia-mps: ShareGPU reserves"
                + " /tmp/nvidia-mps and the volume name sharegpu-mps-pipe for the MPS pipe"),
        Arguments.of(
            "reserved volume name with other content",
            new PodBuilder(gpuPod("250").build())
                .editSpec()
                .addToVolumes(
                    new VolumeBuilder()
                        .withName("sharegpu-mps-pipe")
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .build())
                .endSpec()
                .build(),
            "volume \"sharegpu-mps-pipe\" is reserved for the MPS pipe (hostPath /tmp/nvidia-mps);"
                + " rename your volume"));
  }

  @Test
  void allowsPodMadeBySharePodControllerUnchanged() {
    assertThat(policy.decide(TestPods.sharePodControllerPod()))
        .isInstanceOf(AdmissionDecision.Unchanged.class);
  }

  @Test
  void acceptsDownwardApiFormWithoutExplicitFieldRefApiVersion() {
    Pod pod = TestPods.sharePodControllerPod();
    pod.getSpec()
        .getContainers()
        .get(0)
        .getEnv()
        .get(0)
        .getValueFrom()
        .getFieldRef()
        .setApiVersion(null);

    assertThat(policy.decide(pod)).isInstanceOf(AdmissionDecision.Unchanged.class);
  }

  @Test
  void injectsEnvMountVolumeAndSchedulerNameIntoFreshPod() {
    AdmissionDecision decision = policy.decide(gpuPod("250").build());

    assertThat(decision)
        .isEqualTo(
            new AdmissionDecision.Patched(
                List.of(
                    PatchOperation.add("/spec/schedulerName", "sharegpu-scheduler"),
                    PatchOperation.add(
                        "/spec/containers/0/env", ShareGpuEnv.downwardApiEnv("main")),
                    PatchOperation.add(
                        "/spec/containers/0/volumeMounts", List.of(ShareGpuEnv.mpsPipeMount())),
                    PatchOperation.add("/spec/volumes", List.of(ShareGpuEnv.mpsPipeVolume())))));
  }

  @Test
  void appendsToExistingEnvMountsAndVolumesOfGpuContainersOnly() {
    Pod pod =
        new PodBuilder(
                withMount(
                    withEnv(gpuPod("250").build(), literal("HOME", "/work")), "data", "/data"))
            .editSpec()
            .withSchedulerName("sharegpu-scheduler")
            .addToVolumes(
                new VolumeBuilder().withName("data").withNewEmptyDir().endEmptyDir().build())
            .addToContainers(
                new ContainerBuilder().withName("sidecar").withImage("busybox").build())
            .endSpec()
            .build();

    List<PatchOperation> patch = ((AdmissionDecision.Patched) policy.decide(pod)).patch();

    List<PatchOperation> expected = new ArrayList<>();
    for (EnvVar env : ShareGpuEnv.downwardApiEnv("main")) {
      expected.add(PatchOperation.add("/spec/containers/0/env/-", env));
    }
    expected.add(
        PatchOperation.add("/spec/containers/0/volumeMounts/-", ShareGpuEnv.mpsPipeMount()));
    expected.add(PatchOperation.add("/spec/volumes/-", ShareGpuEnv.mpsPipeVolume()));
    assertThat(patch).isEqualTo(expected);
  }

  @Test
  void completesPartlyInjectedPodWithoutDuplicates() {
    Pod pod = TestPods.sharePodControllerPod();
    pod.getSpec().getContainers().get(0).getEnv().remove(1);
    pod.getSpec().setVolumes(null);

    assertThat(((AdmissionDecision.Patched) policy.decide(pod)).patch())
        .containsExactly(
            PatchOperation.add(
                "/spec/containers/0/env/-", ShareGpuEnv.downwardApiEnv("main").get(1)),
            PatchOperation.add("/spec/volumes", List.of(ShareGpuEnv.mpsPipeVolume())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validPods")
  void isIdempotent(String name, Pod pod) {
    AdmissionDecision first = policy.decide(pod);
    assertThat(first).isInstanceOf(AdmissionDecision.Patched.class);

    Pod patched = JsonPatchApplier.apply(pod, ((AdmissionDecision.Patched) first).patch());

    assertThat(policy.decide(patched)).isInstanceOf(AdmissionDecision.Unchanged.class);
    assertThat(PodGpuRequestParser.parse(patched)).isEqualTo(PodGpuRequestParser.parse(pod));
  }

  static Stream<Arguments> validPods() {
    Container second =
        new ContainerBuilder()
            .withName("worker")
            .withNewResources()
            .withLimits(Map.of("sharegpu.io/gpu-milli", new Quantity("2000")))
            .endResources()
            .withEnv(literal("RANK", "1"))
            .build();
    return Stream.of(
        Arguments.of("one share", gpuPod("250").build()),
        Arguments.of("whole GPUs", gpuPod("1000").build()),
        Arguments.of(
            "two GPU containers and a sidecar",
            new PodBuilder(gpuPod("500").build())
                .editSpec()
                .addNewContainer()
                .withName("sidecar")
                .endContainer()
                .addToContainers(second)
                .endSpec()
                .build()),
        Arguments.of(
            "no scheduler name at all",
            new PodBuilder(gpuPod("250").build())
                .editSpec()
                .withSchedulerName(null)
                .endSpec()
                .build()));
  }

  @Test
  void keepsExplicitShareGpuSchedulerName() {
    Pod pod =
        new PodBuilder(gpuPod("250").build())
            .editSpec()
            .withSchedulerName("sharegpu-scheduler")
            .endSpec()
            .build();

    assertThat(((AdmissionDecision.Patched) policy.decide(pod)).patch())
        .extracting(PatchOperation::path)
        .doesNotContain("/spec/schedulerName");
  }

  @Test
  void usesConfiguredSchedulerNameAndCanLeaveOutTheMpsPipe() {
    PodAdmissionPolicy custom = new PodAdmissionPolicy("gpu-scheduler", false);

    assertThat(((AdmissionDecision.Patched) custom.decide(gpuPod("250").build())).patch())
        .containsExactly(
            PatchOperation.add("/spec/schedulerName", "gpu-scheduler"),
            PatchOperation.add("/spec/containers/0/env", ShareGpuEnv.downwardApiEnv("main")));
  }

  private static List<String> reasons(AdmissionDecision decision) {
    assertThat(decision).isInstanceOf(AdmissionDecision.Denied.class);
    return ((AdmissionDecision.Denied) decision).reasons();
  }

  private static Pod withEnv(Pod pod, EnvVar env) {
    Container c = pod.getSpec().getContainers().get(0);
    List<EnvVar> list = c.getEnv() == null ? new ArrayList<>() : new ArrayList<>(c.getEnv());
    list.add(env);
    c.setEnv(list);
    return pod;
  }

  private static Pod withMount(Pod pod, String name, String path) {
    pod.getSpec()
        .getContainers()
        .get(0)
        .setVolumeMounts(
            new ArrayList<>(
                List.of(new VolumeMountBuilder().withName(name).withMountPath(path).build())));
    return pod;
  }
}
