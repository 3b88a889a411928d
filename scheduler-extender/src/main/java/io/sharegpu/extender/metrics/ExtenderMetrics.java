package io.sharegpu.extender.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.extender.cluster.ClusterView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 *   <li>{@code sharegpu_ledger_ready}: 1 once the ledger is rebuilt;
 *   <li>{@code sharegpu_extender_leader}: 1 while this replica may bind (the bind leader, or the
 *       only replica when bind leader election is off).
 * </ul>
 */
public final class ExtenderMetrics {

  private final MeterRegistry registry;
  private final MultiGauge computeRatio;
  private final MultiGauge memoryBytes;
  private final MultiGauge capacityBytes;
  private final AtomicInteger ready = new AtomicInteger();
  private final AtomicInteger leader = new AtomicInteger();
  // Meters by verb and tag, looked up once: the request path only increments them.
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  /** Creates the meters in {@code registry}. */
  public ExtenderMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.computeRatio =
        MultiGauge.builder("sharegpu.gpu.allocated.compute.ratio")
            .description("Allocated compute of a GPU as a fraction of the GPU")
            .register(registry);
    this.memoryBytes =
        MultiGauge.builder("sharegpu.gpu.allocated.memory")
            .baseUnit("bytes")
            .description("Allocated GPU memory")
            .register(registry);
    this.capacityBytes =
        MultiGauge.builder("sharegpu.gpu.memory")
            .baseUnit("bytes")
            .description("GPU memory capacity")
            .register(registry);
    registry.gauge("sharegpu.ledger.ready", ready);
    registry.gauge("sharegpu.extender.leader", leader);
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

  /** Refreshes the per-GPU gauges from the ledger. */
  public void refresh(ClusterView view) {
    ready.set(view.isReady() ? 1 : 0);
    List<MultiGauge.Row<?>> compute = new ArrayList<>();
    List<MultiGauge.Row<?>> memory = new ArrayList<>();
    List<MultiGauge.Row<?>> capacity = new ArrayList<>();
    view.withLedger(
        l -> {
          for (GpuNode n : l.nodes()) {
            for (GpuUsage u : l.usage(n.name())) {
              Tags tags =
                  Tags.of(
                      "node", n.name(),
                      "gpu", Integer.toString(u.gpu().index()),
                      "uuid", u.gpu().uuid(),
                      "model", u.gpu().model());
              compute.add(MultiGauge.Row.of(tags, u.usedMilli() / 1000.0));
              memory.add(MultiGauge.Row.of(tags, u.usedMemoryMib() * 1024.0 * 1024.0));
              capacity.add(MultiGauge.Row.of(tags, u.gpu().memoryMib() * 1024.0 * 1024.0));
            }
          }
          return null;
        });
    computeRatio.register(compute, true);
    memoryBytes.register(memory, true);
    capacityBytes.register(capacity, true);
  }
}
