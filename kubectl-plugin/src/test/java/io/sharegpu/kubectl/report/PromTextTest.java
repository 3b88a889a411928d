package io.sharegpu.kubectl.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromTextTest {

  private static final String METRICS =
      """
      # HELP sharegpu_container_gpu_memory_used_bytes GPU memory of the container's processes
      # TYPE sharegpu_container_gpu_memory_used_bytes gauge
      sharegpu_container_gpu_memory_used_bytes{container="main",device_uuid="GPU-a",namespace="ml",node="n1",pod="nb"} 2.147483648E9
      sharegpu_gpu_utilization_ratio{device_uuid="GPU-a",model="NVIDIA H100",node="n1"} 0.42
      weird_label{a="x\\"y,z",b="\\\\"} 1
      bucket{le="+Inf"} +Inf
      up 1 1733385600000
      """;

  @Test
  void readsNamesLabelsAndValuesAndSkipsCommentsAndInfinities() {
    List<PromText.Sample> samples = PromText.parse(METRICS);
    assertThat(samples)
        .extracting(PromText.Sample::name)
        .containsExactly(
            "sharegpu_container_gpu_memory_used_bytes",
            "sharegpu_gpu_utilization_ratio",
            "weird_label",
            "up");
    assertThat(samples.get(0).labels())
        .containsEntry("device_uuid", "GPU-a")
        .containsEntry("pod", "nb");
    assertThat(samples.get(0).value()).isEqualTo(2.147483648e9);
    assertThat(samples.get(2).labels()).isEqualTo(Map.of("a", "x\"y,z", "b", "\\"));
    assertThat(samples.get(3).value()).isEqualTo(1.0);
  }

  @Test
  void joinsContainerMemoryWithGpuUtilisationAndTheAssignedMemory() {
    PodReport pod =
        new PodReport(
            "ml",
            "nb",
            "n1",
            "Running",
            List.of(
                new PodReport.ContainerRow(
                    "main", List.of("GPU-a"), 250, 500, 10240, "50", "0=10240M")));
    List<UsageRow> rows = Usage.rows(PromText.parse(METRICS), List.of(pod));
    assertThat(rows)
        .containsExactly(
            new UsageRow("ml", "nb", "main", "n1", "GPU-a", 2.147483648e9, 10240, 0.42));
  }
}
