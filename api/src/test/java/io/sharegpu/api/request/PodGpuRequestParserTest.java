package io.sharegpu.api.request;

import static io.sharegpu.api.ShareGpuResources.GPU_MEMORY;
import static io.sharegpu.api.ShareGpuResources.GPU_MILLI;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuAnnotations;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodGpuRequestParserTest {

  // ---- fixtures -----------------------------------------------------------------------------

  private static Container gpu(String name, String milli) {
    return container(name, Map.of(GPU_MILLI, milli));
  }

  private static Container gpu(String name, String milli, String memory) {
    return container(name, Map.of(GPU_MILLI, milli, GPU_MEMORY, memory));
  }

  private static Container container(String name, Map<String, String> limits) {
    return new ContainerBuilder()
        .withName(name)
        .withImage("busybox")
        .withNewResources()
        .withLimits(quantities(limits))
        .endResources()
        .build();
  }

  private static Container requestsOnly(String name, Map<String, String> requests) {
    return new ContainerBuilder()
        .withName(name)
        .withImage("busybox")
        .withNewResources()
        .withRequests(quantities(requests))
        .endResources()
        .build();
  }

  private static Map<String, Quantity> quantities(Map<String, String> values) {
    Map<String, Quantity> result = new LinkedHashMap<>();
    values.forEach((k, v) -> result.put(k, new Quantity(v)));
    return result;
  }

  private static Pod pod(Map<String, String> annotations, Container... containers) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .withNamespace("default")
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withContainers(containers)
        .endSpec()
        .build();
  }

  private static Pod pod(Container... containers) {
    return pod(Map.of(), containers);
  }

  private static Map<String, String> limit(String value) {
    return Map.of(ShareGpuAnnotations.GPU_LIMIT_MILLI, value);
  }

  private static Arguments invalid(String name, Pod pod, String... errors) {
    return Arguments.of(Named.of(name, pod), List.of(errors));
  }

  private static Arguments valid(String name, Pod pod, PodGpuRequest expected) {
    return Arguments.of(Named.of(name, pod), expected);
  }

  // ---- invalid requests -----------------------------------------------------------------------

  static Stream<Arguments> invalidRequests() {
    String main = "container \"main\": ";
    return Stream.of(
        invalid(
            "negative milli",
            pod(gpu("main", "-250")),
            main + "sharegpu.io/gpu-milli must be > 0, got \"-250\""),
        invalid(
            "zero milli",
            pod(gpu("main", "0")),
            main + "sharegpu.io/gpu-milli must be > 0, got \"0\""),
        invalid(
            "milli not a number",
            pod(gpu("main", "abc")),
            main + "sharegpu.io/gpu-milli must be a positive integer, got \"abc\""),
        invalid(
            "milli with a fraction",
            pod(gpu("main", "250m")),
            main + "sharegpu.io/gpu-milli must be a positive integer, got \"250m\""),
        invalid(
            "milli >= 1000 not a multiple of 1000",
            pod(gpu("main", "1500")),
            main
                + "sharegpu.io/gpu-milli \"1500\" is >= 1000 but not a multiple of 1000"
                + " (whole GPUs are 1000, 2000, ...)"),
        invalid(
            "limit below request",
            pod(limit("200"), gpu("main", "250")),
            "sharegpu.io/gpu-limit-milli \"200\" is below the request 250 of container \"main\""),
        invalid(
            "limit above 1000",
            pod(limit("1200"), gpu("main", "250")),
            "sharegpu.io/gpu-limit-milli \"1200\" is above 1000"),
        invalid(
            "limit not a number",
            pod(limit("half"), gpu("main", "250")),
            "sharegpu.io/gpu-limit-milli must be a positive integer, got \"half\""),
        invalid(
            "limit zero",
            pod(limit("0"), gpu("main", "250")),
            "sharegpu.io/gpu-limit-milli must be > 0, got \"0\""),
        invalid(
            "models with empty names",
            pod(Map.of(ShareGpuAnnotations.GPU_MODELS, "H100,,"), gpu("main", "250")),
            "sharegpu.io/gpu-models: model names may contain only letters, digits, '-', '_' and"
                + " '.', got \"H100,,\""),
        invalid(
            "models with a space and a bang",
            pod(Map.of(ShareGpuAnnotations.GPU_MODELS, "H 100!"), gpu("main", "250")),
            "sharegpu.io/gpu-models: model names may contain only letters, digits, '-', '_' and"
                + " '.', got \"H 100!\""),
        invalid(
            "pinned UUIDs with a space",
            pod(Map.of(ShareGpuAnnotations.GPU_UUIDS, "GPU-1 GPU-2"), gpu("main", "250")),
            "sharegpu.io/gpu-uuids: GPU UUIDs may contain only letters, digits, '-', '_' and '/',"
                + " got \"GPU-1 GPU-2\""),
        invalid(
            "GPU memory not a number",
            pod(gpu("main", "250", "lots")),
            main + "sharegpu.io/gpu-memory must be a positive integer number of MiB, got \"lots\""),
        invalid(
            "GPU memory a fraction of a MiB number",
            pod(gpu("main", "250", "1.5")),
            main + "sharegpu.io/gpu-memory must be a positive integer number of MiB, got \"1.5\""),
        invalid(
            "GPU memory zero",
            pod(gpu("main", "250", "0")),
            main + "sharegpu.io/gpu-memory must be > 0, got \"0\""),
        invalid(
            "GPU memory negative quantity",
            pod(gpu("main", "250", "-1")),
            main + "sharegpu.io/gpu-memory must be > 0, got \"-1\""),
        invalid(
            "GPU memory as a binary quantity (bytes)",
            pod(gpu("main", "250", "10Gi")),
            main
                + "sharegpu.io/gpu-memory is a number of MiB (nodes advertise GPU memory in MiB),"
                + " got \"10Gi\"; write it in MiB, e.g. \"10240\" for 10Gi"),
        invalid(
            "GPU memory without milli",
            pod(container("main", Map.of(GPU_MEMORY, "10240"))),
            main
                + "sharegpu.io/gpu-memory \"10240\" needs sharegpu.io/gpu-milli in the same container"),
        invalid(
            "init container requesting milli",
            new PodBuilder(pod(gpu("main", "250")))
                .editSpec()
                .withInitContainers(gpu("setup", "100"))
                .endSpec()
                .build(),
            "init container \"setup\": init containers cannot request sharegpu.io resources"),
        invalid(
            "init container requesting memory only",
            new PodBuilder(pod(container("app", Map.of())))
                .editSpec()
                .withInitContainers(requestsOnly("setup", Map.of(GPU_MEMORY, "1024")))
                .endSpec()
                .build(),
            "init container \"setup\": init containers cannot request sharegpu.io resources"),
        invalid(
            "every error of every container is reported",
            pod(limit("100"), gpu("a", "0"), gpu("b", "250"), gpu("c", "2500")),
            "container \"a\": sharegpu.io/gpu-milli must be > 0, got \"0\"",
            "container \"c\": sharegpu.io/gpu-milli \"2500\" is >= 1000 but not a multiple of 1000"
                + " (whole GPUs are 1000, 2000, ...)",
            "sharegpu.io/gpu-limit-milli \"100\" is below the request 250 of container \"b\""),
        invalid(
            "GPU container name too long for the annotation keys",
            pod(gpu("a-very-long-container-name-for-a-gpu-job", "250")),
            "container \"a-very-long-container-name-for-a-gpu-job\": the name of a GPU container may"
                + " have at most 34 characters (it becomes part of the assignment annotation keys),"
                + " got 40"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidRequests")
  void reportsEveryErrorNamingContainerAndValue(Pod pod, List<String> errors) {
    ParsedRequest parsed = PodGpuRequestParser.parse(pod);

    assertThat(parsed).isInstanceOf(ParsedRequest.Invalid.class);
    assertThat(((ParsedRequest.Invalid) parsed).errors()).containsExactlyElementsOf(errors);
  }

  // ---- valid requests -------------------------------------------------------------------------

  static Stream<Arguments> validRequests() {
    return Stream.of(
        valid(
            "a share defaults its limit to the request",
            pod(gpu("main", "250")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 250, 0, 250))),
        valid(
            "a share with a limit and memory in MiB",
            pod(limit("500"), gpu("main", "250", "10240")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 250, 10240, 500))),
        valid(
            "limit equal to the request and limit 1000 are allowed",
            pod(limit("1000"), gpu("main", "999")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 999, 0, 1000))),
        valid(
            "memory as the API server stores 12000 MiB (12k) is 12000 MiB",
            pod(gpu("main", "250", "12k")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 250, 12000, 250))),
        valid(
            "memory in MiB with an exponent",
            pod(gpu("main", "250", "2e3")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 250, 2000, 250))),
        valid(
            "whole GPUs ignore the limit annotation",
            pod(limit("300"), gpu("main", "2000")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 2000, 0, 1000))),
        valid(
            "whole GPUs ignore even an unreadable limit annotation",
            pod(limit("half"), gpu("main", "1000")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 1000, 0, 1000))),
        valid(
            "whole GPUs written as a quantity",
            pod(gpu("main", "1k")),
            PodGpuRequest.of(new ContainerGpuRequest("main", 1000, 0, 1000))),
        valid(
            "requests only are read when limits are absent",
            pod(requestsOnly("main", Map.of(GPU_MILLI, "300", GPU_MEMORY, "4096"))),
            PodGpuRequest.of(new ContainerGpuRequest("main", 300, 4096, 300))),
        valid(
            "limits win over requests",
            pod(
                new ContainerBuilder(gpu("main", "400"))
                    .editResources()
                    .addToRequests(GPU_MILLI, new Quantity("100"))
                    .endResources()
                    .build()),
            PodGpuRequest.of(new ContainerGpuRequest("main", 400, 0, 400))),
        valid(
            "several GPU containers, non-GPU containers skipped, limit applied to each share",
            pod(
                limit("600"),
                gpu("trainer", "500", "8192"),
                container("sidecar", Map.of("cpu", "1")),
                gpu("evaluator", "250"),
                gpu("big", "2000", "40960")),
            PodGpuRequest.of(
                new ContainerGpuRequest("trainer", 500, 8192, 600),
                new ContainerGpuRequest("evaluator", 250, 0, 600),
                new ContainerGpuRequest("big", 2000, 40960, 1000))),
        valid(
            "models and UUIDs are split and trimmed",
            pod(
                Map.of(
                    ShareGpuAnnotations.GPU_MODELS, "H100, A100-SXM4-80GB",
                    ShareGpuAnnotations.GPU_UUIDS, "GPU-aa,GPU-bb",
                    ShareGpuAnnotations.GPU_EXCLUDE_UUIDS, "MIG-cc"),
                gpu("main", "250")),
            new PodGpuRequest(
                List.of(new ContainerGpuRequest("main", 250, 0, 250)),
                List.of("H100", "A100-SXM4-80GB"),
                List.of("GPU-aa", "GPU-bb"),
                List.of("MIG-cc"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validRequests")
  void parsesValidRequest(Pod pod, PodGpuRequest expected) {
    assertThat(PodGpuRequestParser.parse(pod)).isEqualTo(new ParsedRequest.Valid(expected));
  }

  // ---- no GPU ---------------------------------------------------------------------------------

  @Test
  void podWithoutSharegpuResourcesIsNoGpu() {
    Pod plain = pod(limit("500"), container("web", Map.of("cpu", "500m")));

    assertThat(PodGpuRequestParser.parse(plain)).isEqualTo(new ParsedRequest.NoGpu());
  }

  @Test
  void podWithoutSpecOrMetadataIsNoGpu() {
    assertThat(PodGpuRequestParser.parse(new Pod())).isEqualTo(new ParsedRequest.NoGpu());
  }

  @Test
  void parsesPodSpecWithAnnotationsOfATemplate() {
    PodSpec spec = pod(gpu("main", "250")).getSpec();

    ParsedRequest parsed = PodGpuRequestParser.parse(spec, limit("750"));

    assertThat(parsed)
        .isEqualTo(
            new ParsedRequest.Valid(
                PodGpuRequest.of(new ContainerGpuRequest("main", 250, 0, 750))));
  }

  // ---- memory fit -----------------------------------------------------------------------------

  @Test
  void memoryLargerThanTheLargestGpuDoesNotFit() {
    PodGpuRequest request =
        PodGpuRequest.of(
            ContainerGpuRequest.share("small", 250, 1024),
            ContainerGpuRequest.share("main", 250, 200_000));

    assertThat(PodGpuRequestParser.checkMemoryFits(request, 143_771))
        .contains(
            "container \"main\": sharegpu.io/gpu-memory 200000 MiB is more than the largest GPU in"
                + " the cluster has (143771 MiB)");
  }

  @Test
  void memoryOfWholeGpusIsSpreadOverTheirGpus() {
    PodGpuRequest fits = PodGpuRequest.of(ContainerGpuRequest.wholeGpus("main", 2, 160_000));
    PodGpuRequest tooBig = PodGpuRequest.of(ContainerGpuRequest.wholeGpus("main", 2, 300_000));

    assertThat(PodGpuRequestParser.checkMemoryFits(fits, 81_559)).isEqualTo(Optional.empty());
    assertThat(PodGpuRequestParser.checkMemoryFits(tooBig, 143_771))
        .contains(
            "container \"main\": sharegpu.io/gpu-memory 300000 MiB (150000 MiB per GPU) is more"
                + " than the largest GPU in the cluster has (143771 MiB)");
  }

  @Test
  void memoryNotGivenAlwaysFits() {
    PodGpuRequest request = PodGpuRequest.of(ContainerGpuRequest.share("main", 250, 0));

    assertThat(PodGpuRequestParser.checkMemoryFits(request, 1)).isEmpty();
  }
}
