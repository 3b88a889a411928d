package io.sharegpu.extender.metrics;

import static io.sharegpu.extender.Fixtures.addNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.cluster.ClusterView;
import org.junit.jupiter.api.Test;

/** The per-GPU gauges follow the ledger: values, new GPUs, removed nodes. */
class ExtenderMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ExtenderMetrics metrics = new ExtenderMetrics(registry);

  private double compute(String node, int gpu) {
    return registry
        .get("sharegpu.gpu.allocated.compute.ratio")
        .tags("node", node, "gpu", Integer.toString(gpu))
        .gauge()
        .value();
  }

  @Test
  void gaugesFollowTheLedger() {
    ClusterView view = Fixtures.view("binpack");
    addNode(view, "h100", "NVIDIA H100 80GB HBM3", 2, 81559);
    metrics.refresh(view);
    assertThat(compute("h100", 0)).isZero();
    assertThat(registry.get("sharegpu.gpu.memory").tags("node", "h100").gauges()).hasSize(2);

    assertThat(view.reserve(PodDemand.share("ns/a", "uid-a", 250, 1024), "h100")).isPresent();
    metrics.refresh(view);
    assertThat(compute("h100", 0) + compute("h100", 1)).isEqualTo(0.25);
    assertThat(
            registry.get("sharegpu.gpu.allocated.memory").tags("node", "h100").gauges().stream()
                .mapToDouble(g -> g.value())
                .sum())
        .isEqualTo(1024.0 * 1024 * 1024);

    addNode(view, "t4", "Tesla T4", 1, 15360);
    metrics.refresh(view);
    assertThat(compute("t4", 0)).isZero();

    view.onGpuNodeDelete(Fixtures.gpuNode("h100", "NVIDIA H100 80GB HBM3", 2, 81559));
    metrics.refresh(view);
    assertThat(registry.find("sharegpu.gpu.memory").tags("node", "h100").gauges()).isEmpty();
    assertThat(registry.find("sharegpu.gpu.memory").gauges()).hasSize(1);
    view.close();
  }
}
