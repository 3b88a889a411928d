package io.sharegpu.webhook.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.webhook.admission.spelling.Peer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each peer's documented examples, translated through {@link PodAdmissionPolicy}: the patched pod
 * is read back with ShareGPU's own parser ({@code container=milli/memoryMib/limitMilli}, memory 0 =
 * ShareGPU's default), and must keep none of the peer's resources.
 */
class SpellingTranslationTest {

  private static final PodAdmissionPolicy POLICY =
      new PodAdmissionPolicy("sharegpu-scheduler", true, EnumSet.allOf(Peer.class));

  /** One container "main" with these resource limits, pod annotations and labels. */
  private static Pod pod(
      Map<String, String> limits, Map<String, String> annotations, Map<String, String> labels) {
    return podOf(Map.of("main", limits), annotations, labels);
  }

  private static Pod podOf(
      Map<String, Map<String, String>> containers,
      Map<String, String> annotations,
      Map<String, String> labels) {
    PodBuilder builder =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .withNamespace("team")
            .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
            .withLabels(labels.isEmpty() ? null : new LinkedHashMap<>(labels))
            .endMetadata()
            .withNewSpec()
            .endSpec();
    containers.forEach(
        (name, limits) -> {
          Map<String, Quantity> q = new LinkedHashMap<>();
          limits.forEach((k, v) -> q.put(k, new Quantity(v)));
          q.put("cpu", new Quantity("1"));
          builder
              .editSpec()
              .addToContainers(
                  new ContainerBuilder()
                      .withName(name)
                      .withImage("cuda")
                      .withNewResources()
                      .withLimits(q)
                      .endResources()
                      .build())
              .endSpec();
        });
    return builder.build();
  }

  static Stream<Arguments> translated() {
    return Stream.of(
        // HAMi README: 1 vGPU, 3000 MiB, 30% of the cores.
        Arguments.of(
            "hami gpumem+gpucores",
            pod(
                Map.of(
                    "nvidia.com/gpu",
                    "1",
                    "nvidia.com/gpumem",
                    "3000",
                    "nvidia.com/gpucores",
                    "30"),
                Map.of(),
                Map.of()),
            "main=300/3000/300",
            Map.of()),
        // kube-apiserver canonicalises "3000" to "3k" before calling the webhook.
        Arguments.of(
            "hami canonical quantities",
            pod(
                Map.of(
                    "nvidia.com/gpu", "1", "nvidia.com/gpumem", "3k", "nvidia.com/gpucores", "30"),
                Map.of(),
                Map.of()),
            "main=300/3000/300",
            Map.of()),
        Arguments.of(
            "hami whole GPU (memory and cores by default)",
            pod(Map.of("nvidia.com/gpu", "1"), Map.of(), Map.of()),
            "main=1000/0/1000",
            Map.of()),
        Arguments.of(
            "hami two whole GPUs",
            pod(Map.of("nvidia.com/gpu", "2"), Map.of(), Map.of()),
            "main=2000/0/1000",
            Map.of()),
        Arguments.of(
            "hami gpucores 100 is exclusive",
            pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpucores", "100"), Map.of(), Map.of()),
            "main=1000/0/1000",
            Map.of()),
        Arguments.of(
            "hami memory only: cores neither reserved nor capped",
            pod(Map.of("nvidia.com/gpumem", "4096"), Map.of(), Map.of()),
            "main=1/4096/1000",
            Map.of()),
        Arguments.of(
            "hami gpumem-percentage equal to gpucores",
            pod(
                Map.of(
                    "nvidia.com/gpu",
                    "1",
                    "nvidia.com/gpumem-percentage",
                    "25",
                    "nvidia.com/gpucores",
                    "25"),
                Map.of(),
                Map.of()),
            "main=250/0/250",
            Map.of()),
        Arguments.of(
            "hami UUID and type annotations",
            pod(
                Map.of(
                    "nvidia.com/gpu",
                    "1",
                    "nvidia.com/gpumem",
                    "1024",
                    "nvidia.com/gpucores",
                    "50"),
                Map.of(
                    "nvidia.com/use-gpuuuid", "GPU-a, GPU-b",
                    "nvidia.com/nouse-gpuuuid", "GPU-c",
                    "nvidia.com/use-gputype", "A100,H100"),
                Map.of()),
            "main=500/1024/500",
            Map.of(
                ShareGpuAnnotations.GPU_UUIDS, "GPU-a,GPU-b",
                ShareGpuAnnotations.GPU_EXCLUDE_UUIDS, "GPU-c",
                ShareGpuAnnotations.GPU_MODELS, "A100,H100")),
        // gpu-manager README: "0.3 GPU utilization and 7680MiB GPU memory with 0.5 GPU limit".
        Arguments.of(
            "gpu-manager README example",
            pod(
                Map.of("tencent.com/vcuda-core", "30", "tencent.com/vcuda-memory", "30"),
                Map.of("tencent.com/vcuda-core-limit", "50"),
                Map.of()),
            "main=300/7680/500",
            Map.of()),
        Arguments.of(
            "gpu-manager share",
            pod(
                Map.of("tencent.com/vcuda-core", "50", "tencent.com/vcuda-memory", "30"),
                Map.of(),
                Map.of()),
            "main=500/7680/500",
            Map.of()),
        Arguments.of(
            "gpu-manager share with a raised cap",
            pod(
                Map.of("tencent.com/vcuda-core", "20", "tencent.com/vcuda-memory", "4"),
                Map.of("tencent.com/vcuda-core-limit", "60"),
                Map.of()),
            "main=200/1024/600",
            Map.of()),
        Arguments.of(
            "gpu-manager two whole GPUs",
            pod(Map.of("tencent.com/vcuda-core", "200"), Map.of(), Map.of()),
            "main=2000/0/1000",
            Map.of()),
        // gpushare user guide: aliyun.com/gpu-mem 3 = 3 GiB.
        Arguments.of(
            "gpushare 3 GiB",
            pod(Map.of("aliyun.com/gpu-mem", "3"), Map.of(), Map.of()),
            "main=1/3072/1000",
            Map.of()),
        // KubeShare 1.x SharePod example: request 0.5, limit 1.0, 1 GiB in bytes.
        Arguments.of(
            "kubeshare 1.x",
            pod(
                Map.of(),
                Map.of(
                    "kubeshare/gpu_request", "0.5",
                    "kubeshare/gpu_limit", "1.0",
                    "kubeshare/gpu_mem", "1073741824"),
                Map.of()),
            "main=500/1024/1000",
            Map.of()),
        Arguments.of(
            "kubeshare 1.x bytes round up to MiB",
            pod(
                Map.of(),
                Map.of(
                    "kubeshare/gpu_request", "0.25",
                    "kubeshare/gpu_limit", "0.25",
                    "kubeshare/gpu_mem", "1000000"),
                Map.of()),
            "main=250/1/250",
            Map.of()),
        // KubeShare 2.0 examples: labels.
        Arguments.of(
            "kubeshare 2.0 share",
            pod(
                Map.of(),
                Map.of(),
                Map.of(
                    "sharedgpu/gpu_request", "0.3",
                    "sharedgpu/gpu_limit", "0.6",
                    "sharedgpu/priority", "100",
                    "app", "x")),
            "main=300/0/600",
            Map.of()),
        Arguments.of(
            "kubeshare 2.0 whole GPUs",
            pod(
                Map.of(),
                Map.of(),
                Map.of("sharedgpu/gpu_request", "2", "sharedgpu/gpu_limit", "2.0")),
            "main=2000/0/1000",
            Map.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void translated(String name, Pod pod, String expected, Map<String, String> annotations) {
    AdmissionDecision decision = POLICY.decide(pod);

    assertThat(decision).as(describe(decision)).isInstanceOf(AdmissionDecision.Patched.class);
    Pod patched = JsonPatchApplier.apply(pod, ((AdmissionDecision.Patched) decision).patch());
    ParsedRequest parsed =
        PodGpuRequestParser.parse(patched.getSpec(), patched.getMetadata().getAnnotations());
    assertThat(parsed).isInstanceOf(ParsedRequest.Valid.class);
    String actual =
        ((ParsedRequest.Valid) parsed)
            .request().containers().stream()
                .map(SpellingTranslationTest::format)
                .collect(Collectors.joining(";"));
    assertThat(actual).isEqualTo(expected);
    assertThat(patched.getMetadata().getAnnotations()).containsAllEntriesOf(annotations);
    assertThat(patched.getMetadata().getAnnotations())
        .containsKey(SpellingTranslator.TRANSLATED_FROM);
    for (var container : patched.getSpec().getContainers()) {
      Set<String> keys = new java.util.TreeSet<>(container.getResources().getLimits().keySet());
      keys.addAll(
          container.getResources().getRequests() == null
              ? Set.of()
              : container.getResources().getRequests().keySet());
      assertThat(keys).allMatch(k -> k.equals("cpu") || k.startsWith("sharegpu.io/"));
      assertThat(container.getResources().getLimits()).containsEntry("cpu", new Quantity("1"));
    }
    assertThat(
            patched.getMetadata().getLabels() == null
                ? Map.of()
                : patched.getMetadata().getLabels())
        .doesNotContainKeys("sharedgpu/gpu_request", "sharedgpu/gpu_limit");
    // Deciding again (kube-apiserver's reinvocation) changes nothing.
    assertThat(POLICY.decide(patched)).isInstanceOf(AdmissionDecision.Unchanged.class);
  }

  static Stream<Arguments> denied() {
    return Stream.of(
        Arguments.of(
            "two peers in one pod",
            pod(Map.of("nvidia.com/gpu", "1", "aliyun.com/gpu-mem", "2"), Map.of(), Map.of()),
            "mixes the spellings of hami"),
        Arguments.of(
            "a peer next to ShareGPU's own",
            pod(Map.of("nvidia.com/gpu", "1", "sharegpu.io/gpu-milli", "500"), Map.of(), Map.of()),
            "ShareGPU's own keys"),
        Arguments.of(
            "a peer next to ShareGPU's annotation",
            pod(
                Map.of("tencent.com/vcuda-core", "100"),
                Map.of(ShareGpuAnnotations.GPU_MODELS, "A100"),
                Map.of()),
            "ShareGPU's own keys"),
        Arguments.of(
            "hami gpumem with gpumem-percentage",
            pod(
                Map.of(
                    "nvidia.com/gpumem",
                    "1000",
                    "nvidia.com/gpumem-percentage",
                    "50",
                    "nvidia.com/gpucores",
                    "50"),
                Map.of(),
                Map.of()),
            "are both set"),
        Arguments.of(
            "hami cores share without memory (HAMi gives all memory)",
            pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpucores", "30"), Map.of(), Map.of()),
            "gives the whole GPU memory"),
        Arguments.of(
            "hami several partial GPUs",
            pod(Map.of("nvidia.com/gpu", "2", "nvidia.com/gpumem", "3000"), Map.of(), Map.of()),
            "at most one GPU per container"),
        Arguments.of(
            "hami cores above 100",
            pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpucores", "150"), Map.of(), Map.of()),
            "must be 0..100"),
        Arguments.of(
            "hami fractional memory",
            pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1500m"), Map.of(), Map.of()),
            "must be a whole number"),
        Arguments.of(
            "hami absurd memory",
            pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", "3Gi"), Map.of(), Map.of()),
            "must be a whole number from 0 to"),
        Arguments.of(
            "hami priority",
            pod(Map.of("nvidia.com/gpu", "1", "nvidia.com/priority", "1"), Map.of(), Map.of()),
            "PriorityClass"),
        Arguments.of(
            "hami nouse-gputype",
            pod(Map.of("nvidia.com/gpu", "1"), Map.of("nvidia.com/nouse-gputype", "T4"), Map.of()),
            "has no ShareGPU equivalent"),
        Arguments.of(
            "gpu-manager cores not a multiple of 100",
            pod(Map.of("tencent.com/vcuda-core", "150"), Map.of(), Map.of()),
            "multiple of 100"),
        Arguments.of(
            "gpu-manager share without memory",
            pod(Map.of("tencent.com/vcuda-core", "50"), Map.of(), Map.of()),
            "will not guess"),
        Arguments.of(
            "gpushare gpu-count",
            pod(Map.of("aliyun.com/gpu-mem", "2", "aliyun.com/gpu-count", "2"), Map.of(), Map.of()),
            "not supported"),
        Arguments.of(
            "kubeshare limit below request",
            pod(
                Map.of(),
                Map.of("kubeshare/gpu_request", "0.5", "kubeshare/gpu_limit", "0.3"),
                Map.of()),
            "must be between the request"),
        Arguments.of(
            "kubeshare 1.x without gpu_mem",
            pod(
                Map.of(),
                Map.of("kubeshare/gpu_request", "0.5", "kubeshare/gpu_limit", "1.0"),
                Map.of()),
            "KubeShare 1.x requires it"),
        Arguments.of(
            "kubeshare without limit",
            pod(Map.of(), Map.of("kubeshare/gpu_request", "0.5"), Map.of()),
            "go together"),
        Arguments.of(
            "kubeshare 1.x more than one GPU",
            pod(
                Map.of(),
                Map.of("kubeshare/gpu_request", "2", "kubeshare/gpu_limit", "2"),
                Map.of()),
            "at most 1.0"),
        Arguments.of(
            "kubeshare finer than thousandths",
            pod(
                Map.of(),
                Map.of("kubeshare/gpu_request", "0.3333", "kubeshare/gpu_limit", "1"),
                Map.of()),
            "finer than"),
        Arguments.of(
            "kubeshare GPUID",
            pod(
                Map.of(),
                Map.of(
                    "kubeshare/gpu_request", "0.5",
                    "kubeshare/gpu_limit", "1",
                    "kubeshare/GPUID", "abcde"),
                Map.of()),
            "kubeshare/GPUID"),
        Arguments.of(
            "kubeshare 2.0 gpu_model",
            pod(
                Map.of(),
                Map.of(),
                Map.of(
                    "sharedgpu/gpu_request", "0.5",
                    "sharedgpu/gpu_limit", "1.0",
                    "sharedgpu/gpu_model", "NVIDIA-GeForce-GTX-1080")),
            "dashed form"),
        Arguments.of(
            "kubeshare with two containers",
            podOf(
                Map.of("a", Map.of(), "b", Map.of()),
                Map.of("kubeshare/gpu_request", "0.5", "kubeshare/gpu_limit", "1"),
                Map.of()),
            "one GPU, but the pod has 2 containers"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void denied(String name, Pod pod, String reason) {
    AdmissionDecision decision = POLICY.decide(pod);

    assertThat(decision).as(describe(decision)).isInstanceOf(AdmissionDecision.Denied.class);
    assertThat(((AdmissionDecision.Denied) decision).message()).contains(reason);
  }

  @Test
  void peersNotEnabledPassUntouched() {
    Pod hami = pod(Map.of("nvidia.com/gpu", "1"), Map.of(), Map.of());
    PodAdmissionPolicy none = new PodAdmissionPolicy("sharegpu-scheduler", true);

    assertThat(none.decide(hami)).isInstanceOf(AdmissionDecision.NotGpu.class);
    assertThat(none.decide(hami, Set.of(Peer.GPUSHARE)))
        .isInstanceOf(AdmissionDecision.NotGpu.class);
    assertThat(none.decide(hami, Set.of(Peer.HAMI))).isInstanceOf(AdmissionDecision.Patched.class);
  }

  @Test
  void aDisabledPeerMixedWithAnEnabledOneIsStillRefused() {
    Pod mix = pod(Map.of("nvidia.com/gpu", "1", "aliyun.com/gpu-mem", "2"), Map.of(), Map.of());
    PodAdmissionPolicy none = new PodAdmissionPolicy("sharegpu-scheduler", true);

    assertThat(none.decide(mix, Set.of(Peer.GPUSHARE)))
        .isInstanceOf(AdmissionDecision.Denied.class);
  }

  @Test
  void peerNamesParse() {
    assertThat(Peer.parse(List.of("all"))).containsExactlyInAnyOrder(Peer.values());
    assertThat(Peer.parse(List.of(" HAMi ", "gpu-manager", "")))
        .containsExactlyInAnyOrder(Peer.HAMI, Peer.GPU_MANAGER);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Peer.parse(List.of("volcano")))
        .hasMessageContaining("volcano");
  }

  /**
   * Every gpu-manager core count from 1 to 1000 either translates to ten times it or is refused.
   */
  @Test
  void gpuManagerCoresScaleByTen() {
    List<String> wrong = new ArrayList<>();
    for (int core = 1; core <= 1000; core++) {
      Pod pod =
          pod(
              Map.of(
                  "tencent.com/vcuda-core",
                  Integer.toString(core),
                  "tencent.com/vcuda-memory",
                  "4"),
              Map.of(),
              Map.of());
      AdmissionDecision decision = POLICY.decide(pod);
      boolean valid = core < 100 || core % 100 == 0;
      if (valid != decision instanceof AdmissionDecision.Patched) {
        wrong.add(core + " -> " + describe(decision));
        continue;
      }
      if (valid) {
        Pod patched = JsonPatchApplier.apply(pod, ((AdmissionDecision.Patched) decision).patch());
        Quantity milli =
            patched
                .getSpec()
                .getContainers()
                .get(0)
                .getResources()
                .getLimits()
                .get("sharegpu.io/gpu-milli");
        if (!milli.equals(new Quantity(Integer.toString(core * 10)))) {
          wrong.add(core + " -> " + milli);
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  private static String format(ContainerGpuRequest c) {
    return c.container() + "=" + c.computeMilli() + "/" + c.memoryMib() + "/" + c.limitMilli();
  }

  private static String describe(AdmissionDecision decision) {
    return decision instanceof AdmissionDecision.Denied d ? d.message() : decision.toString();
  }
}
