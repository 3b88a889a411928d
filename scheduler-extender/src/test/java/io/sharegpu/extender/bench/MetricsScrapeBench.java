package io.sharegpu.extender.bench;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.metrics.MetricsProperties;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Measures what the extender's metrics cost a Prometheus scrape on a large cluster: builds a
 * cluster view of {@code --nodes} nodes with {@code --gpus-per-node} H100s in this process (a
 * quarter-GPU share on two GPUs and one whole GPU held per node), registers {@link ExtenderMetrics}
 * in a {@link PrometheusMeterRegistry}, per-GPU series off and then on, refreshes them, then
 * renders the registry's text output {@code --scrapes} times and prints the number of {@code
 * sharegpu_*} series, the size of the output and the median and 90th-percentile render time; also
 * the time of a refresh after one pod changed and of a refresh with nothing changed. Not a test:
 * the figures depend on the machine.
 *
 * <p>Usage: {@code MetricsScrapeBench [--nodes 5000] [--gpus-per-node 8] [--scrapes 30]}.
 */
public final class MetricsScrapeBench {

  private MetricsScrapeBench() {}

  /** Runs the measurement. */
  public static void main(String[] args) {
    int nodes = 5000;
    int gpusPerNode = 8;
    int scrapes = 30;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        case "--gpus-per-node" -> gpusPerNode = Integer.parseInt(args[++i]);
        case "--scrapes" -> scrapes = Integer.parseInt(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown argument "
                    + args[i]
                    + "; usage: [--nodes N] [--gpus-per-node N] [--scrapes N]");
      }
    }
    ClusterFixture view = cluster(nodes, gpusPerNode);
    for (boolean perGpu : new boolean[] {false, true}) {
      measure(view, new MetricsProperties(perGpu, 0), nodes, gpusPerNode, scrapes);
    }
    view.close();
  }

  private static void measure(
      ClusterFixture view, MetricsProperties props, int nodes, int gpusPerNode, int scrapes) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ExtenderMetrics metrics = new ExtenderMetrics(registry, props);
    metrics.watch(view.feed(), view.state());
    for (String verb : new String[] {"filter", "prioritize", "preempt", "bind"}) {
      metrics.latency(verb, Duration.ofMillis(2));
    }
    metrics.decision("filter", "feasible");
    metrics.rejection("filter", "no-gpu-fits");

    long t0 = System.nanoTime();
    metrics.refresh(view.state());
    double firstRefreshMs = (System.nanoTime() - t0) / 1e6;

    String text = registry.scrape();
    long series = text.lines().filter(l -> l.startsWith("sharegpu_")).count();
    double[] ms = new double[scrapes];
    for (int i = 0; i < scrapes; i++) {
      long s = System.nanoTime();
      text = registry.scrape();
      ms[i] = (System.nanoTime() - s) / 1e6;
    }
    Arrays.sort(ms);

    String uid = "uid-one-more-" + props.perGpu();
    view.reserve(PodDemand.share("bench/" + uid, uid, 250, 1024), "node-0");
    long r = System.nanoTime();
    metrics.refresh(view.state());
    double changedRefreshMs = (System.nanoTime() - r) / 1e6;
    r = System.nanoTime();
    metrics.refresh(view.state());
    double unchangedRefreshMs = (System.nanoTime() - r) / 1e6;

    System.out.printf(
        Locale.ROOT,
        "per_gpu=%s nodes=%d gpus=%d sharegpu_series=%d all_series=%d bytes=%d"
            + " first_refresh_ms=%.1f refresh_one_change_ms=%.2f refresh_no_change_ms=%.3f"
            + " scrape_ms_median=%.1f scrape_ms_p90=%.1f scrapes=%d%n",
        props.perGpu(),
        nodes,
        nodes * gpusPerNode,
        series,
        text.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count(),
        text.length(),
        firstRefreshMs,
        changedRefreshMs,
        unchangedRefreshMs,
        ms[scrapes / 2],
        ms[Math.min(scrapes - 1, (int) Math.ceil(scrapes * 0.9) - 1)],
        scrapes);
    registry.close();
  }

  /** A ready view with the nodes and a few reservations on each (the TTL outlasts the run). */
  static ClusterFixture cluster(int nodes, int gpusPerNode) {
    ClusterFixture view =
        new ClusterFixture(null, PlacementPolicies.byName("binpack", 1), Duration.ofHours(1));
    view.markReady();
    for (int n = 0; n < nodes; n++) {
      String node = "node-" + n;
      Fixtures.addNode(view, node, "NVIDIA H100 80GB HBM3", gpusPerNode, 81559);
      view.reserve(PodDemand.share("bench/a-" + n, "uid-a-" + n, 250, 10240), node);
      view.reserve(PodDemand.share("bench/b-" + n, "uid-b-" + n, 500, 20480), node);
      view.reserve(
          PodDemand.of("bench/c-" + n, "uid-c-" + n, GpuDemand.whole("main", 1, 81559)), node);
    }
    return view;
  }
}
