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
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's Micrometer meters, exported by Prometheus as {@code sharegpu_*}; docs/metrics.md
 * lists them with their labels and units.
 *
 * <ul>
 *   <li>{@code sharegpu_extender_request_duration_seconds{verb}}: latency histogram per verb
 *       ({@code filter}, {@code prioritize}, {@code preempt}, {@code bind}), buckets from 100 µs to
 *       10 s;
 *   <li>{@code sharegpu_decisions_total{verb,outcome}} and {@code
 *       sharegpu_rejections_total{verb,reason}}: outcomes and denials, each label from a fixed set
 *       ({@link #OUTCOMES}, {@link #REASONS}; anything else is counted as {@code other});
 *   <li>per node ({@code node}): {@code sharegpu_node_gpu_compute_allocated}, {@code
 *       sharegpu_node_gpu_compute_capacity} (in GPUs: 2.5 = two and a half GPUs of compute), {@code
 *       sharegpu_node_gpu_memory_allocated_bytes}, {@code sharegpu_node_gpu_memory_capacity_bytes};
 *   <li>cluster: {@code sharegpu_cluster_gpus}, {@code sharegpu_cluster_gpus_free}, {@code
 *       sharegpu_cluster_gpus_whole_free}, {@code sharegpu_cluster_gpu_compute_unallocated_ratio},
 *       {@code sharegpu_cluster_gpu_compute_fragmented_ratio}, {@code sharegpu_cluster_pods};
 *   <li>per GPU, only with {@code sharegpu.metrics.per-gpu=true} and labelled as dcgm-exporter
 *       labels its series ({@code Hostname}, {@code gpu}, {@code UUID}, {@code modelName}): {@code
 *       sharegpu_gpu_compute_allocated}, {@code sharegpu_gpu_memory_allocated_bytes}, {@code
 *       sharegpu_gpu_memory_capacity_bytes};
 *   <li>{@code sharegpu_preemption_victims}, {@code sharegpu_preemption_evicted_pods_total}, {@code
 *       sharegpu_preemption_nominated_pods}: preemption;
 *   <li>{@code sharegpu_reservations_expired_total}, {@code sharegpu_reservations_pending}:
 *       reservations that filter or prioritize made and no bind took over;
 *   <li>{@code sharegpu_ledger_ready}, {@code sharegpu_ledger_rebuild_duration_seconds}: the ledger
 *       rebuilt from the cluster at start, and how long that took;
 *   <li>{@code sharegpu_extender_leader}: 1 while this replica may bind.
 * </ul>
 *
 * <p>The ledger-derived gauges read values that {@link #refresh} writes; a scrape only reads them.
 * A refresh visits only the nodes whose usage changed since the last one ({@link
 * NodeUsage#generation()}), so its cost follows the changes, not the size of the cluster.
 */
public final class ExtenderMetrics {

  private static final Logger log = LoggerFactory.getLogger(ExtenderMetrics.class);

  /** The verbs, the only values of the {@code verb} label. */
  static final Set<String> VERBS = Set.of("filter", "prioritize", "preempt", "bind");

  /** The values of {@code outcome} on {@code sharegpu_decisions_total}. */
  static final Set<String> OUTCOMES =
      Set.of(
          "feasible",
          "unschedulable",
          "no-gpu",
          "scored",
          "victims",
          "no-node",
          "not-ready",
          "invalid-request",
          "bound",
          "failed",
          "forwarded");

  /** The values of {@code reason} on {@code sharegpu_rejections_total}. */
  static final Set<String> REASONS =
      Set.of(
          "malformed",
          "not-ready",
          "invalid-request",
          "no-gpu-fits",
          "held-for-nominated-pod",
          "no-leader",
          "not-leader",
          "api-error",
          "pod-gone",
          "already-bound",
          "no-fit",
          "conflict",
          "binding-rejected",
          "binding-failed",
          "binding-unknown",
          "internal");

  /** The label value for a verb, outcome or reason outside its set. */
  static final String OTHER = "other";

  /** Latency buckets: sub-millisecond filter calls to binds that wait seconds for the API. */
  static final Duration[] LATENCY_BUCKETS = {
    Duration.ofNanos(100_000),
    Duration.ofNanos(250_000),
    Duration.ofNanos(500_000),
    Duration.ofMillis(1),
    Duration.ofNanos(2_500_000),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private static final double MIB = 1024.0 * 1024.0;

  private final MeterRegistry registry;
  private final MetricsProperties props;
  private final AtomicInteger ready = new AtomicInteger();
  private final AtomicInteger leader = new AtomicInteger();
  // Meters by verb and tag, looked up once: the request path only increments them.
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  // Touched only by refresh (one scheduled thread); the gauges read the volatile fields.
  private final Map<String, NodeMeters> nodes = new HashMap<>();
  private List<String> nodeNames = List.of();
  private long refreshedVersion = -1;
  private long refreshedNodesVersion = -1;
  private int gpuSeries;
  private boolean capWarned;
  private boolean gpusWithoutSeries;
  private final ClusterSums sums = new ClusterSums();
  private volatile ClusterSums published = new ClusterSums();

  /** Creates the meters in {@code registry} with the default settings (no per-GPU series). */
  public ExtenderMetrics(MeterRegistry registry) {
    this(registry, MetricsProperties.DEFAULTS);
  }

  /** Creates the meters in {@code registry}. */
  public ExtenderMetrics(MeterRegistry registry, MetricsProperties props) {
    this.registry = registry;
    this.props = props;
    Gauge.builder("sharegpu.ledger.ready", ready, AtomicInteger::get)
        .description("1 once the GPU ledger has been rebuilt from the cluster")
        .register(registry);
    Gauge.builder("sharegpu.extender.leader", leader, AtomicInteger::get)
        .description("1 while this replica may bind")
        .register(registry);
    clusterGauge(
        "sharegpu.cluster.gpus",
        "GPUs in the ledger (MIG instances, not their parents)",
        s -> s.gpus);
    clusterGauge(
        "sharegpu.cluster.gpus.free",
        "Healthy, uncordoned GPUs with compute and memory free that no pod holds whole",
        s -> s.freeGpus);
    clusterGauge(
        "sharegpu.cluster.gpus.whole.free",
        "Healthy, uncordoned GPUs no pod holds any part of",
        s -> s.wholeFreeGpus);
    clusterGauge(
        "sharegpu.cluster.gpus.cordoned",
        "GPUs an operator cordoned (spec.cordonedGpus of their GPUNode): they take no new pod",
        s -> s.cordonedGpus);
    clusterGauge(
        "sharegpu.cluster.gpu.compute.unallocated.ratio",
        "GPU compute not allocated, as a fraction of all GPU compute",
        s -> s.capacityMilli == 0 ? 0 : 1.0 - (double) s.usedMilli / s.capacityMilli);
    clusterGauge(
        "sharegpu.cluster.gpu.compute.fragmented.ratio",
        "Of the free compute of healthy, uncordoned GPUs, the fraction on GPUs already partly held"
            + " (no whole-GPU pod can use it)",
        s -> s.freeMilli == 0 ? 0 : (double) s.fragmentedMilli / s.freeMilli);
    clusterGauge(
        "sharegpu.cluster.pods",
        "Pods holding GPUs in the ledger: reserved, bound or ending",
        s -> s.pods);
  }

  /** Registers a cluster gauge reading the sums of the last refresh. */
  private void clusterGauge(String name, String description, ToDoubleFunction<ClusterSums> f) {
    Gauge.builder(name, this, m -> f.applyAsDouble(m.published))
        .description(description)
        .register(registry);
  }

  /**
   * Registers the meters that read the informer feed and the scheduling state: preemption,
   * reservations, ledger rebuild.
   */
  public void watch(ClusterFeed feed, SchedulingState state) {
    FunctionCounter.builder("sharegpu.preemption.evicted.pods", feed, ClusterFeed::preemptedPods)
        .description("GPU pods kube-scheduler evicted to make room for a pod of higher priority")
        .register(registry);
    Gauge.builder("sharegpu.preemption.nominated.pods", state, s -> s.nominations().size())
        .description("Pods nominated to a node by preemption, waiting for their victims' GPUs")
        .register(registry);
    FunctionCounter.builder(
            "sharegpu.reservations.expired", state, SchedulingState::expiredReservations)
        .description("Reservations of filter or prioritize that expired without a bind")
        .register(registry);
    Gauge.builder("sharegpu.reservations.pending", state, SchedulingState::pendingReservations)
        .description("Reservations waiting for a bind")
        .register(registry);
    Gauge.builder(
            "sharegpu.ledger.rebuild.duration",
            feed,
            v -> v.ledgerRebuildTime().map(d -> d.toNanos() / 1e9).orElse(Double.NaN))
        .baseUnit("seconds")
        .description(
            "Time from starting the informers to a ledger rebuilt from the cluster (NaN before)")
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
            bounded(verb, VERBS),
            v ->
                Timer.builder("sharegpu.extender.request.duration")
                    .description("Latency of kube-scheduler's calls to the extender, per verb")
                    .tag("verb", v)
                    .serviceLevelObjectives(LATENCY_BUCKETS)
                    .register(registry))
        .record(d);
  }

  /** Counts a decision. */
  public void decision(String verb, String outcome) {
    String v = bounded(verb, VERBS);
    String o = bounded(outcome, OUTCOMES);
    counters
        .computeIfAbsent(
            "d|" + v + "|" + o,
            k ->
                Counter.builder("sharegpu.decisions")
                    .description("Extender decisions by verb and outcome")
                    .tags("verb", v, "outcome", o)
                    .register(registry))
        .increment();
  }

  /** Counts a rejection or failure. */
  public void rejection(String verb, String reason) {
    String v = bounded(verb, VERBS);
    String r = bounded(reason, REASONS);
    counters
        .computeIfAbsent(
            "r|" + v + "|" + r,
            k ->
                Counter.builder("sharegpu.rejections")
                    .description("Denials and failures by verb and reason")
                    .tags("verb", v, "reason", r)
                    .register(registry))
        .increment();
  }

  private static String bounded(String value, Set<String> known) {
    return known.contains(value) ? value : OTHER;
  }

  /**
   * Refreshes the ledger-derived gauges. Nothing is done while the ledger has not changed; then
   * only nodes whose usage changed are read, each under the ledger lock for that node alone, so
   * filter and prioritize never wait behind a whole-cluster walk. Called from one scheduled thread.
   */
  public void refresh(SchedulingState view) {
    ready.set(view.isReady() ? 1 : 0);
    long[] versions = view.withLedger(l -> new long[] {l.version(), l.nodesVersion()});
    if (versions[0] == refreshedVersion && !retryCappedGpus()) {
      return;
    }
    if (versions[1] != refreshedNodesVersion) {
      nodeNames = view.withLedger(l -> List.copyOf(l.nodeNames()));
      Set<String> present = new HashSet<>(nodeNames);
      for (var it = nodes.entrySet().iterator(); it.hasNext(); ) {
        var e = it.next();
        if (!present.contains(e.getKey())) {
          e.getValue().remove();
          it.remove();
        }
      }
    }
    boolean retry = retryCappedGpus();
    gpusWithoutSeries = false;
    for (String name : nodeNames) {
      NodeMeters m = nodes.get(name);
      NodeUsage known = m == null ? null : m.usage;
      long knownGeneration = m == null ? -1 : m.generation;
      boolean wantGpus = retry && m != null && m.gpusMissing();
      NodeSnapshot s =
          view.withLedger(l -> NodeSnapshot.ifChanged(l, name, known, knownGeneration, wantGpus));
      if (s == null) {
        if (m != null && m.gpusMissing()) {
          gpusWithoutSeries = true;
        }
        continue;
      }
      if (m == null) {
        m = new NodeMeters(name);
        nodes.put(name, m);
      }
      m.update(s);
    }
    published = sums.copy();
    refreshedVersion = versions[0];
    refreshedNodesVersion = versions[1];
  }

  /** True when some GPUs have no series for the cap and room has been freed since. */
  private boolean retryCappedGpus() {
    return gpusWithoutSeries && roomForGpu();
  }

  private boolean roomForGpu() {
    return props.perGpuMaxSeries() == 0 || gpuSeries + 3 <= props.perGpuMaxSeries();
  }

  /**
   * One node's usage copied under the ledger lock (the ledger's arrays are not thread-safe): per
   * GPU compute and memory, held and in all, holders, health and MIG role; and its pods.
   */
  private record NodeSnapshot(NodeUsage usage, long generation, List<GpuState> gpus, int pods) {

    static @Nullable NodeSnapshot ifChanged(
        Ledger ledger, String name, @Nullable NodeUsage known, long generation, boolean force) {
      NodeUsage u = ledger.nodeUsage(name);
      if (u == null || (!force && u == known && u.generation() == generation)) {
        return null;
      }
      List<GpuState> gpus = new ArrayList<>(u.size());
      for (int i = 0; i < u.size(); i++) {
        Gpu g = u.gpu(i);
        gpus.add(
            new GpuState(
                g.uuid(),
                g.index(),
                g.model(),
                u.usedMilli(i),
                u.computeMilli(i),
                u.usedMemoryMib(i),
                u.memoryMib(i),
                u.holderCount(i),
                u.isExclusive(i),
                u.isHealthy(i),
                u.isCordoned(i),
                u.isMigParent(i)));
      }
      return new NodeSnapshot(u, u.generation(), gpus, ledger.allocations(name).size());
    }
  }

  /** One GPU of a {@link NodeSnapshot}. */
  private record GpuState(
      String uuid,
      int index,
      String model,
      int usedMilli,
      int capacityMilli,
      long usedMemoryMib,
      long memoryMib,
      int holders,
      boolean exclusive,
      boolean healthy,
      boolean cordoned,
      boolean migParent) {}

  /** Cluster totals: the sum of every node's contribution. */
  private static final class ClusterSums {
    long gpus;
    long freeGpus;
    long wholeFreeGpus;
    long cordonedGpus;
    long capacityMilli;
    long usedMilli;
    long freeMilli;
    long fragmentedMilli;
    long pods;

    void add(ClusterSums o, int sign) {
      gpus += sign * o.gpus;
      freeGpus += sign * o.freeGpus;
      wholeFreeGpus += sign * o.wholeFreeGpus;
      cordonedGpus += sign * o.cordonedGpus;
      capacityMilli += sign * o.capacityMilli;
      usedMilli += sign * o.usedMilli;
      freeMilli += sign * o.freeMilli;
      fragmentedMilli += sign * o.fragmentedMilli;
      pods += sign * o.pods;
    }

    ClusterSums copy() {
      ClusterSums c = new ClusterSums();
      c.add(this, 1);
      return c;
    }
  }

  /** The gauges of one node (and of its GPUs when per-GPU series are on). */
  private final class NodeMeters {
    final String name;
    final List<Meter> meters = new ArrayList<>(4);
    @Nullable NodeUsage usage;
    long generation = -1;
    volatile double computeAllocated;
    volatile double computeCapacity;
    volatile double memoryAllocatedBytes;
    volatile double memoryCapacityBytes;
    ClusterSums contribution = new ClusterSums();
    // Per-GPU gauges by UUID (per-GPU series on); fewer than the node's GPUs when capped.
    final Map<String, GpuMeters> gpus = new HashMap<>();
    int gpuCount;

    NodeMeters(String name) {
      this.name = name;
      Tags tags = Tags.of("node", name);
      meters.add(
          Gauge.builder("sharegpu.node.gpu.compute.allocated", this, m -> m.computeAllocated)
              .description("GPU compute allocated on the node, in GPUs (0.25 = a quarter GPU)")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      meters.add(
          Gauge.builder("sharegpu.node.gpu.compute.capacity", this, m -> m.computeCapacity)
              .description("GPU compute of the node, in GPUs")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      meters.add(
          Gauge.builder("sharegpu.node.gpu.memory.allocated", this, m -> m.memoryAllocatedBytes)
              .baseUnit("bytes")
              .description("GPU memory allocated on the node")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      meters.add(
          Gauge.builder("sharegpu.node.gpu.memory.capacity", this, m -> m.memoryCapacityBytes)
              .baseUnit("bytes")
              .description("GPU memory of the node")
              .tags(tags)
              .strongReference(true)
              .register(registry));
    }

    boolean gpusMissing() {
      return props.perGpu() && gpus.size() < gpuCount;
    }

    void update(NodeSnapshot s) {
      ClusterSums c = new ClusterSums();
      long usedMilli = 0;
      long capacityMilli = 0;
      long usedMemory = 0;
      long memory = 0;
      for (GpuState g : s.gpus()) {
        if (g.migParent()) {
          continue; // its MIG instances stand for it
        }
        usedMilli += g.usedMilli();
        capacityMilli += g.capacityMilli();
        usedMemory += g.usedMemoryMib();
        memory += g.memoryMib();
        c.gpus++;
        if (g.cordoned()) {
          c.cordonedGpus++;
        }
        if (!g.healthy() || g.cordoned()) {
          continue; // takes no new pod: neither free nor fragmented room
        }
        int free = g.exclusive() ? 0 : Math.max(0, g.capacityMilli() - g.usedMilli());
        if (free > 0 && g.memoryMib() > g.usedMemoryMib()) {
          c.freeGpus++;
        }
        if (g.holders() == 0) {
          c.wholeFreeGpus++;
        } else {
          c.fragmentedMilli += free;
        }
        c.freeMilli += free;
      }
      c.capacityMilli = capacityMilli;
      c.usedMilli = usedMilli;
      c.pods = s.pods();
      sums.add(contribution, -1);
      sums.add(c, 1);
      contribution = c;
      computeAllocated = usedMilli / 1000.0;
      computeCapacity = capacityMilli / 1000.0;
      memoryAllocatedBytes = usedMemory * MIB;
      memoryCapacityBytes = memory * MIB;
      if (props.perGpu()) {
        updateGpus(s);
      }
      usage = s.usage();
      generation = s.generation();
    }

    private void updateGpus(NodeSnapshot s) {
      gpuCount = s.gpus().size();
      Set<String> present = new HashSet<>();
      for (GpuState g : s.gpus()) {
        present.add(g.uuid());
      }
      for (var it = gpus.entrySet().iterator(); it.hasNext(); ) {
        GpuMeters gm = it.next().getValue();
        if (!present.contains(gm.uuid)) {
          gm.remove();
          it.remove();
        }
      }
      for (GpuState g : s.gpus()) {
        GpuMeters gm = gpus.get(g.uuid());
        if (gm != null && !gm.sameIdentity(g)) {
          gm.remove();
          gpus.remove(g.uuid());
          gm = null;
        }
        if (gm == null) {
          if (!roomForGpu()) {
            gpusWithoutSeries = true;
            warnCapped();
            continue;
          }
          gm = new GpuMeters(name, g);
          gpus.put(g.uuid(), gm);
        }
        gm.computeAllocated = g.usedMilli() / 1000.0;
        gm.memoryAllocatedBytes = g.usedMemoryMib() * MIB;
        gm.memoryCapacityBytes = g.memoryMib() * MIB;
      }
    }

    void remove() {
      meters.forEach(registry::remove);
      gpus.values().forEach(GpuMeters::remove);
      gpus.clear();
      sums.add(contribution, -1);
    }
  }

  private void warnCapped() {
    if (!capWarned) {
      capWarned = true;
      log.warn(
          "per-GPU metrics capped at {} series (sharegpu.metrics.per-gpu-max-series, 3 per GPU):"
              + " GPUs past the cap have no sharegpu_gpu_* series; per-node and cluster series"
              + " still count them",
          props.perGpuMaxSeries());
    }
  }

  /** The three gauges of one GPU, labelled as dcgm-exporter labels its series. */
  private final class GpuMeters {
    final String uuid;
    final int index;
    final String model;
    final List<Meter> meters = new ArrayList<>(3);
    volatile double computeAllocated;
    volatile double memoryAllocatedBytes;
    volatile double memoryCapacityBytes;

    GpuMeters(String node, GpuState g) {
      this.uuid = g.uuid();
      this.index = g.index();
      this.model = g.model();
      Tags tags =
          Tags.of(
              "Hostname", node,
              "gpu", Integer.toString(g.index()),
              "UUID", g.uuid(),
              "modelName", g.model());
      meters.add(
          Gauge.builder("sharegpu.gpu.compute.allocated", this, m -> m.computeAllocated)
              .description("GPU compute allocated, in GPUs (1 = the whole GPU)")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      meters.add(
          Gauge.builder("sharegpu.gpu.memory.allocated", this, m -> m.memoryAllocatedBytes)
              .baseUnit("bytes")
              .description("GPU memory allocated")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      meters.add(
          Gauge.builder("sharegpu.gpu.memory.capacity", this, m -> m.memoryCapacityBytes)
              .baseUnit("bytes")
              .description("GPU memory")
              .tags(tags)
              .strongReference(true)
              .register(registry));
      gpuSeries += meters.size();
    }

    boolean sameIdentity(GpuState g) {
      return index == g.index() && model.equals(g.model());
    }

    void remove() {
      meters.forEach(registry::remove);
      gpuSeries -= meters.size();
    }
  }
}
