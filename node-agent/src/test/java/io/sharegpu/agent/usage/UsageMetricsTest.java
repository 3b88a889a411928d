package io.sharegpu.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sharegpu.agent.gpu.GpuDevice;
import io.sharegpu.agent.gpu.GpuProcess;
import io.sharegpu.agent.gpu.GpuSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageMetricsTest {

  private static final String UID = "0c1e4c3a-5b8f-4f4e-9d6a-2f0c9a7b1e11";
  private static final String CID =
      "4f2c9d1e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d";
  private static final String GPU = "GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7";

  @Test
  void attributesProcessesToContainersThroughTheirCgroups(@TempDir Path proc) throws Exception {
    cgroup(proc, 690, "0::/kubepods/burstable/pod" + UID + "/" + CID + "\n");
    cgroup(proc, 691, "0::/kubepods/burstable/pod" + UID + "/" + CID + "\n");
    cgroup(proc, 548, "0::/system.slice/nvidia-mps.service\n");
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PodLookup pods =
        (uid, cid) ->
            uid.equals(UID) && cid.equals(CID)
                ? Optional.of(new PodRef("team-a", "train-1", "trainer"))
                : Optional.empty();
    UsageMetrics metrics = new UsageMetrics(registry, "gpu-1", new PodCgroups(proc), pods);

    metrics.update(
        new GpuSnapshot(
            "580.159.04",
            List.of(GpuDevice.whole(GPU, 0, "NVIDIA H200", 150754820096L, 1L << 30, 37)),
            List.of(
                new GpuProcess(690, GPU, 600L << 20),
                new GpuProcess(691, GPU, 100L << 20),
                new GpuProcess(548, GPU, 66L << 20))));
    String text = registry.scrape();

    assertThat(text)
        .contains(
            "sharegpu_container_gpu_memory_used_bytes{container=\"trainer\",device_uuid=\""
                + GPU
                + "\",namespace=\"team-a\",node=\"gpu-1\",pod=\"train-1\"} 7.340032E8")
        .contains(
            "sharegpu_gpu_unattributed_memory_used_bytes{device_uuid=\""
                + GPU
                + "\",node=\"gpu-1\"} 6.9206016E7")
        .contains(
            "sharegpu_gpu_memory_total_bytes{device_uuid=\""
                + GPU
                + "\",model=\"NVIDIA H200\",node=\"gpu-1\"} 1.50754820096E11")
        .contains(
            "sharegpu_gpu_utilization_ratio{device_uuid=\""
                + GPU
                + "\",model=\"NVIDIA H200\",node=\"gpu-1\"} 0.37")
        .contains(
            "sharegpu_gpu_healthy{device_uuid=\""
                + GPU
                + "\",model=\"NVIDIA H200\",node=\"gpu-1\"} 1.0");

    metrics.update(new GpuSnapshot("580.159.04", List.of(), List.of()));
    assertThat(registry.scrape())
        .doesNotContain("sharegpu_container_gpu_memory_used_bytes{")
        .doesNotContain("sharegpu_gpu_memory_total_bytes{");
  }

  private static void cgroup(Path proc, int pid, String content) throws Exception {
    Files.createDirectories(proc.resolve(Integer.toString(pid)));
    Files.writeString(proc.resolve(pid + "/cgroup"), content);
  }
}
