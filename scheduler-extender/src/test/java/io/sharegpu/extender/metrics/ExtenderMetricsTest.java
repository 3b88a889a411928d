package io.sharegpu.extender.metrics;

import static io.sharegpu.extender.Fixtures.addNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The extender's series as Prometheus renders them: names, labels and units; per-node and cluster
 * series always, per-GPU series only when asked for and never past the cap; bounded labels.
 */
class ExtenderMetricsTest {

  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final double GIB = 1024.0 * 1024 * 1024;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ClusterFixture view = Fixtures.view("binpack");

  @AfterEach
  void close() {
    view.close();
    registry.close();
  }

  private ExtenderMetrics metrics(MetricsProperties props) {
    ExtenderMetrics m = new ExtenderMetrics(registry, props);
    m.watch(view.feed(), view.state());
    return m;
  }

  /** The value of the one series whose line starts with {@code prefix} (name and labels). */
  private double value(String prefix) {
    List<String> lines = registry.scrape().lines().filter(l -> l.startsWith(prefix)).toList();
    assertThat(lines).as("series %s", prefix).hasSize(1);
    String line = lines.get(0);
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  private long count(String name) {
    return registry.scrape().lines().filter(l -> l.startsWith(name + "{")).count();
  }

  @Test
  void exportsNodeAndClusterSeriesButNoPerGpuSeriesByDefault() {
    ExtenderMetrics metrics = metrics(MetricsProperties.DEFAULTS);
    addNode(view, "h100", H100, 2, 81920);
    assertThat(view.reserve(PodDemand.share("ns/a", "uid-a", 250, 1024), "h100")).isPresent();
    metrics.refresh(view.state());

    assertThat(value("sharegpu_node_gpu_compute_allocated{node=\"h100\"}")).isEqualTo(0.25);
    assertThat(value("sharegpu_node_gpu_compute_capacity{node=\"h100\"}")).isEqualTo(2.0);
    assertThat(value("sharegpu_node_gpu_memory_allocated_bytes{node=\"h100\"}"))
        .isEqualTo(1024.0 * 1024 * 1024);
    assertThat(value("sharegpu_node_gpu_memory_capacity_bytes{node=\"h100\"}"))
        .isEqualTo(2 * 80 * GIB);
    assertThat(value("sharegpu_cluster_gpus ")).isEqualTo(2);
    assertThat(value("sharegpu_cluster_gpus_free ")).isEqualTo(2);
    assertThat(value("sharegpu_cluster_gpus_whole_free ")).isEqualTo(1);
    assertThat(value("sharegpu_cluster_gpu_compute_unallocated_ratio ")).isEqualTo(0.875);
    // 750m free on the partly held GPU, 1000m on the idle one
    assertThat(value("sharegpu_cluster_gpu_compute_fragmented_ratio "))
        .isCloseTo(750.0 / 1750, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(value("sharegpu_cluster_pods ")).isEqualTo(1);
    assertThat(registry.scrape()).doesNotContain("sharegpu_gpu_");
  }

  @Test
  void aCordonedGpuCountsAsCordonedAndNeitherFreeNorFragmented() {
    ExtenderMetrics metrics = metrics(MetricsProperties.DEFAULTS);
    addNode(view, "h100", H100, 3, 81920);
    assertThat(view.reserve(PodDemand.share("ns/a", "uid-a", 250, 1024), "h100")).isPresent();
    metrics.refresh(view.state());
    assertThat(value("sharegpu_cluster_gpus_cordoned ")).isEqualTo(0);
    assertThat(value("sharegpu_cluster_gpus_whole_free ")).isEqualTo(2);

    GPUNode cordoned = Fixtures.gpuNode("h100", H100, 3, 81920);
    GPUNodeSpec spec = new GPUNodeSpec("h100");
    spec.setCordonedGpus(List.of(new GpuCordon(Fixtures.uuid("h100", 2), "fan failure", null)));
    cordoned.setSpec(spec);
    view.onGpuNode(cordoned);
    metrics.refresh(view.state());

    assertThat(value("sharegpu_cluster_gpus_cordoned ")).isEqualTo(1);
    assertThat(value("sharegpu_cluster_gpus ")).isEqualTo(3);
    // the share sits on GPU 0 or 1; of the two others only the uncordoned one is whole and free
    assertThat(value("sharegpu_cluster_gpus_whole_free ")).isEqualTo(1);
    assertThat(value("sharegpu_cluster_gpus_free ")).isEqualTo(2);
  }

  @Test
  void perGpuSeriesCarryDcgmExporterLabelsWhenEnabled() {
    ExtenderMetrics metrics = metrics(new MetricsProperties(true, 0));
    addNode(view, "h100", H100, 2, 81920);
    assertThat(
            view.reserve(PodDemand.of("ns/w", "uid-w", GpuDemand.whole("main", 1, 81920)), "h100"))
        .isPresent();
    metrics.refresh(view.state());

    String uuid0 = Fixtures.uuid("h100", 0);
    String labels0 =
        "{Hostname=\"h100\",UUID=\"" + uuid0 + "\",gpu=\"0\",modelName=\"" + H100 + "\"}";
    double held0 = value("sharegpu_gpu_compute_allocated" + labels0);
    String uuid1 = Fixtures.uuid("h100", 1);
    String labels1 =
        "{Hostname=\"h100\",UUID=\"" + uuid1 + "\",gpu=\"1\",modelName=\"" + H100 + "\"}";
    assertThat(held0 + value("sharegpu_gpu_compute_allocated" + labels1)).isEqualTo(1.0);
    assertThat(value("sharegpu_gpu_memory_capacity_bytes" + labels0)).isEqualTo(80 * GIB);
    assertThat(count("sharegpu_gpu_memory_allocated_bytes")).isEqualTo(2);
    assertThat(value("sharegpu_cluster_gpus_whole_free ")).isEqualTo(1);
    assertThat(value("sharegpu_cluster_gpus_free ")).isEqualTo(1);

    addNode(view, "t4", "Tesla T4", 1, 15360);
    metrics.refresh(view.state());
    assertThat(count("sharegpu_gpu_memory_capacity_bytes")).isEqualTo(3);
    assertThat(value("sharegpu_cluster_gpus ")).isEqualTo(3);

    view.onGpuNodeDelete(Fixtures.gpuNode("h100", H100, 2, 81920));
    metrics.refresh(view.state());
    assertThat(count("sharegpu_gpu_memory_capacity_bytes")).isEqualTo(1);
    assertThat(registry.scrape()).doesNotContain("node=\"h100\"").doesNotContain("\"h100\"");
    assertThat(value("sharegpu_cluster_gpus ")).isEqualTo(1);
    assertThat(value("sharegpu_cluster_pods ")).isZero();
  }

  @Test
  void perGpuSeriesStopAtTheCapAndResumeWhenRoomIsFreed() {
    // 7 series: room for two GPUs (3 series each), not three
    ExtenderMetrics metrics = metrics(new MetricsProperties(true, 7));
    addNode(view, "a", H100, 2, 81920);
    addNode(view, "b", H100, 2, 81920);
    metrics.refresh(view.state());
    assertThat(registry.scrape().lines().filter(l -> l.startsWith("sharegpu_gpu_")).count())
        .isEqualTo(6);
    assertThat(count("sharegpu_node_gpu_compute_capacity")).isEqualTo(2);
    assertThat(value("sharegpu_cluster_gpus ")).isEqualTo(4);

    view.onGpuNodeDelete(Fixtures.gpuNode("a", H100, 2, 81920));
    metrics.refresh(view.state());
    assertThat(count("sharegpu_gpu_compute_allocated")).isEqualTo(2);
    assertThat(registry.scrape())
        .contains("sharegpu_gpu_compute_allocated{Hostname=\"b\"")
        .doesNotContain("Hostname=\"a\"");
  }

  @Test
  void refreshReadsOnlyChangedNodes() {
    ExtenderMetrics metrics = metrics(MetricsProperties.DEFAULTS);
    addNode(view, "a", H100, 1, 81920);
    addNode(view, "b", H100, 1, 81920);
    metrics.refresh(view.state());
    assertThat(view.reserve(PodDemand.share("ns/x", "uid-x", 500, 1024), "b")).isPresent();
    metrics.refresh(view.state());
    assertThat(value("sharegpu_node_gpu_compute_allocated{node=\"a\"}")).isZero();
    assertThat(value("sharegpu_node_gpu_compute_allocated{node=\"b\"}")).isEqualTo(0.5);
    assertThat(value("sharegpu_cluster_gpu_compute_unallocated_ratio ")).isEqualTo(0.75);
    view.withLedger(l -> l.release("uid-x"));
    metrics.refresh(view.state());
    assertThat(value("sharegpu_node_gpu_compute_allocated{node=\"b\"}")).isZero();
    assertThat(value("sharegpu_cluster_gpu_compute_unallocated_ratio ")).isEqualTo(1.0);
    assertThat(value("sharegpu_cluster_gpus_whole_free ")).isEqualTo(2);
  }

  @Test
  void latencyIsAHistogramInSecondsPerVerbFromSubMillisecondToSeconds() {
    ExtenderMetrics metrics = metrics(MetricsProperties.DEFAULTS);
    metrics.latency("filter", Duration.ofNanos(300_000));
    metrics.latency("bind", Duration.ofSeconds(3));
    String text = registry.scrape();
    assertThat(text)
        .contains("# TYPE sharegpu_extender_request_duration_seconds histogram")
        .contains(
            "sharegpu_extender_request_duration_seconds_bucket{verb=\"filter\",le=\"1.0E-4\"} 0")
        .contains(
            "sharegpu_extender_request_duration_seconds_bucket{verb=\"filter\",le=\"5.0E-4\"} 1")
        .contains("sharegpu_extender_request_duration_seconds_bucket{verb=\"bind\",le=\"2.5\"} 0")
        .contains("sharegpu_extender_request_duration_seconds_bucket{verb=\"bind\",le=\"5.0\"} 1")
        .contains("sharegpu_extender_request_duration_seconds_count{verb=\"bind\"} 1");
    Matcher buckets =
        Pattern.compile("sharegpu_extender_request_duration_seconds_bucket\\{verb=\"filter\"")
            .matcher(text);
    long n = buckets.results().count();
    assertThat(n).isEqualTo(ExtenderMetrics.LATENCY_BUCKETS.length + 1L);
  }

  @Test
  void decisionAndRejectionLabelsComeFromFixedSets() {
    ExtenderMetrics metrics = metrics(MetricsProperties.DEFAULTS);
    metrics.decision("filter", "feasible");
    metrics.rejection("bind", "no-fit");
    metrics.rejection("bind", "GPUs on node-7 no longer fit: pod default/x");
    metrics.decision("frobnicate", "whatever");
    String text = registry.scrape();
    assertThat(text)
        .contains("sharegpu_decisions_total{outcome=\"feasible\",verb=\"filter\"} 1.0")
        .contains("sharegpu_rejections_total{reason=\"no-fit\",verb=\"bind\"} 1.0")
        .contains("sharegpu_rejections_total{reason=\"other\",verb=\"bind\"} 1.0")
        .contains("sharegpu_decisions_total{outcome=\"other\",verb=\"other\"} 1.0")
        .doesNotContain("node-7")
        .doesNotContain("frobnicate");
  }

  @Test
  void reservationExpiriesAndLedgerStateAreCounted() {
    ClusterFixture shortLived =
        new ClusterFixture(null, PlacementPolicies.byName("binpack", 1), Duration.ofMillis(50));
    shortLived.markReady();
    try {
      ExtenderMetrics metrics = new ExtenderMetrics(registry, MetricsProperties.DEFAULTS);
      metrics.watch(shortLived.feed(), shortLived.state());
      addNode(shortLived, "a", H100, 1, 81920);
      assertThat(shortLived.reserve(PodDemand.share("ns/r", "uid-r", 250, 1024), "a")).isPresent();
      shortLived.passReservationTtl();
      assertThat(shortLived.<Boolean>withLedger(l -> l.allocation("uid-r").isEmpty())).isTrue();
      metrics.refresh(shortLived.state());
      assertThat(value("sharegpu_reservations_expired_total ")).isEqualTo(1);
      assertThat(value("sharegpu_reservations_pending ")).isZero();
      assertThat(value("sharegpu_ledger_ready ")).isEqualTo(1);
      // a view fed by hand was never rebuilt from the cluster
      assertThat(value("sharegpu_ledger_rebuild_duration_seconds ")).isNaN();
      assertThat(registry.scrape()).contains("# TYPE sharegpu_reservations_expired_total counter");
    } finally {
      shortLived.close();
    }
  }

  @Test
  void rejectsANegativeCap() {
    assertThatThrownBy(() -> new MetricsProperties(true, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("per-gpu-max-series");
  }
}
