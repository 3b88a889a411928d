package io.sharegpu.extender.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.extender.cluster.ClusterView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The extender's Micrometer meters, exported by Prometheus as {@code sharegpu_*}:
 *
 * <ul>
 *   <li>{@code sharegpu_extender_request_seconds{verb}}: latency histogram per verb;
 *   <li>{@code sharegpu_decisions_total{verb,outcome}}: filter/prioritize/bind outcomes;
 *   <li>{@code sharegpu_rejections_total{verb,reason}}: rejections and failures by reason;
 *   <li>{@code sharegpu_gpu_allocated_compute_ratio{node,gpu,uuid,model}} and {@code
 *       sharegpu_gpu_allocated_memory_bytes}, {@code sharegpu_gpu_memory_bytes}: per GPU;
 *   <li>{@code sharegpu_preemption_victims}: per preempt call that found victims, the fewest
 *       victims of any node answered (kube-scheduler evicts those of the node it picks); {@code
 *       sharegpu_preemption_evicted_pods_total}: GPU pods kube-scheduler evicted for preemption;
 *       {@code sharegpu_preemption_nominated_pods}: pods waiting, nominated, for their victims'
 *       GPUs (filter holds that room for them). Preempt calls by outcome are {@code
 *       sharegpu_decisions_total{verb="preempt"}};
 *   <li>{@code sharegpu_ledger_ready}: 1 once the ledger is rebuilt;
 *   <li>{@code sharegpu_extender_leader}: 1 while this replica may bind (the bind leader, or the
 *       only replica when bind leader election is off).
 * </ul>
 */
public final class ExtenderMetrics {

  private final MeterRegistry registry;
  // Per-GPU gauges by node|index|uuid|model; touched only by refresh (one scheduled thread).
  private final Map<String, GpuGauges> gpuGauges = new HashMap<>();
  private long refreshedVersion = -1;
  private final AtomicInteger ready = new AtomicInteger();
  private final AtomicInteger leader = new AtomicInteger();
  // Meters by verb and tag, looked up once: the request path only increments them.
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  /** Creates the meters in {@code registry}. */
  public ExtenderMetrics(MeterRegistry registry) {
    this.registry = registry;
    registry.gauge("sharegpu.ledger.ready", ready);
    registry.gauge("sharegpu.extender.leader", leader);
  }

  /** Registers the meters that read the cluster view: preemption evictions and nominations. */
  public void watch(ClusterView view) {
    FunctionCounter.builder("sharegpu.preemption.evicted.pods", view, ClusterView::preemptedPods)
        .description("GPU pods kube-scheduler evicted to make room for a pod of higher priority")
        .register(registry);
    Gauge.builder("sharegpu.preemption.nominated.pods", view, v -> v.nominations().size())
        .description("Pods nominated to a node by preemption, waiting for their victims' GPUs")
        .register(registry);
  }

  /** Records a preempt call's answer: the fewest victims of any node answered. */
  public void preemptionVictims(int fewest) {
    DistributionSummary.builder("sharegpu.preemption.victims")
        .description("Per preempt call with victims, the fewest victims of any node answered")
        .register(registry)
        .record(fewest);
  }

  /** Sets {@code sharegpu_extender_leader}: whether this replica may bind now. */
  public void leader(boolean leading) {
    leader.set(leading ? 1 : 0);
  }

  /** Meters backed by an in-memory registry (tests). */
  public static ExtenderMetrics inMemory() {
    return new ExtenderMetrics(new SimpleMeterRegistry());
  }

  /** Records one call's latency. */
  public void latency(String verb, Duration d) {
    timers
        .computeIfAbsent(
            verb,
            v ->
                Timer.builder("sharegpu.extender.request")
                    .description("Latency of kube-scheduler's calls to the extender")
                    .tag("verb", v)
                    .publishPercentileHistogram()
                    .register(registry))
        .record(d);
  }

  /** Counts a decision. */
  public void decision(String verb, String outcome) {
    counters
        .computeIfAbsent(
            "d|" + verb + "|" + outcome,
            k ->
                Counter.builder("sharegpu.decisions")
                    .description("Extender decisions by verb and outcome")
                    .tags("verb", verb, "outcome", outcome)
                    .register(registry))
        .increment();
  }

  /** Counts a rejection or failure. */
  public void rejection(String verb, String reason) {
    counters
        .computeIfAbsent(
            "r|" + verb + "|" + reason,
            k ->
                Counter.builder("sharegpu.rejections")
                    .description("Rejections and failures by verb and reason")
                    .tags("verb", verb, "reason", reason)
                    .register(registry))
        .increment();
  }

  /**
   * Refreshes the per-GPU gauges from the ledger. Each GPU's gauges are registered once and read a
   * holder this method updates; the ledger lock is taken per node, never for the whole cluster, so
   * filter and prioritize do not wait behind a refresh; nothing is done while the ledger has not
   * changed. Called from one scheduled thread.
   */
  public void refresh(ClusterView view) {
    ready.set(view.isReady() ? 1 : 0);
    long version = view.withLedger(Ledger::version);
    if (version == refreshedVersion) {
      return;
    }
    List<String> names = view.withLedger(l -> List.copyOf(l.nodeNames()));
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      List<GpuUsage> usage =
          view.withLedger(l -> l.nodeUsage(name) == null ? List.of() : l.usage(name));
      for (GpuUsage u : usage) {
        String key = name + "|" + u.gpu().index() + "|" + u.gpu().uuid() + "|" + u.gpu().model();
        seen.add(key);
        GpuGauges g = gpuGauges.computeIfAbsent(key, k -> new GpuGauges(name, u));
        g.computeRatio = u.usedMilli() / 1000.0;
        g.memoryBytes = u.usedMemoryMib() * 1024.0 * 1024.0;
        g.capacityBytes = u.gpu().memoryMib() * 1024.0 * 1024.0;
      }
    }
    for (var it = gpuGauges.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (!seen.contains(e.getKey())) {
        e.getValue().meters.forEach(registry::remove);
        it.remove();
      }
    }
    refreshedVersion = version;
  }

  /** The gauges of one GPU and the values they report. */
  private final class GpuGauges {
    volatile double computeRatio;
    volatile double memoryBytes;
    volatile double capacityBytes;
    final List<Meter> meters = new ArrayList<>(3);

    GpuGauges(String node, GpuUsage u) {
      Tags tags =
          Tags.of(
              "node", node,
              "gpu", Integer.toString(u.gpu().index()),
              "uuid", u.gpu().uuid(),
              "model", u.gpu().model());
      meters.add(
          Gauge.builder("sharegpu.gpu.allocated.compute.ratio", this, g -> g.computeRatio)
              .description("Allocated compute of a GPU as a fraction of the GPU")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      meters.add(
          Gauge.builder("sharegpu.gpu.allocated.memory", this, g -> g.memoryBytes)
              .baseUnit("bytes")
              .description("Allocated GPU memory")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      meters.add(
          Gauge.builder("sharegpu.gpu.memory", this, g -> g.capacityBytes)
              .baseUnit("bytes")
              .description("GPU memory capacity")
              .tags(tags)
              .strongReference(true)
              .register(registry));
    }
  }
}
