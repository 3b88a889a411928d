package io.sharegpu.simulator;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code latency}: builds a cluster of identical nodes at about the given GPU occupancy (whole GPUs
 * and shares, committed straight to the ledger), then times {@link Placement#filter} followed by
 * {@link Placement#prioritize} over every node for one pod at a time, in-process, as the extender
 * runs them for one scheduling cycle.
 */
final class LatencyCommand {
  static final String MODEL = "NVIDIA H100 80GB HBM3";
  static final long MEMORY_MIB = 81559;

  private LatencyCommand() {}

  static void run(Map<String, String> opts, PrintStream out, PrintStream err) throws IOException {
    int nodes = Main.integer(opts, "nodes", 5000);
    int gpus = Main.integer(opts, "gpus-per-node", 8);
    int occupancy = Main.integer(opts, "occupancy", 70);
    int iterations = Main.integer(opts, "iterations", 2000);
    String policyName = ReplayPolicies.checked(opts.getOrDefault("policy", "sharegpu"));
    if (nodes < 1 || gpus < 1 || occupancy < 0 || occupancy > 100 || iterations < 1) {
      throw new Main.UsageException(
          "--nodes, --gpus-per-node, --iterations must be >= 1 and --occupancy 0..100");
    }
    SplittableRandom random = new SplittableRandom(42);
    Ledger ledger = new Ledger();
    List<String> names = new ArrayList<>(nodes);
    long used = fill(ledger, names, nodes, gpus, occupancy / 100.0, random);
    double occupancyPct = used * 100.0 / (1000L * nodes * gpus);
    PlacementPolicy policy = ReplayPolicies.create(policyName, 42);
    for (int i = 0; i < 1000; i++) {
      policy.observe(pod(random, "warm-" + i));
    }
    Placement placement = new Placement(ledger, policy);
    int warmup = Math.max(200, iterations / 5);
    long[] micros = new long[iterations];
    long[] cpuMicros = new long[iterations];
    long[] filterMicros = new long[iterations];
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    boolean cpuTime = threads.isCurrentThreadCpuTimeSupported();
    List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
    long gcCount = 0;
    long gcMillis = 0;
    int feasible = 0;
    err.printf(
        Locale.ROOT,
        "latency: %d nodes x %d GPUs at %.1f%% occupancy, policy %s, %d warm-up + %d timed%n",
        nodes,
        gpus,
        occupancyPct,
        policyName,
        warmup,
        iterations);
    for (int i = 0; i < warmup + iterations; i++) {
      if (i == warmup) {
        gcCount = -gcCount(gcs);
        gcMillis = -gcMillis(gcs);
      }
      PodDemand pod = pod(random, "p-" + i);
      policy.observe(pod);
      long c0 = cpuTime ? threads.getCurrentThreadCpuTime() : 0;
      long t0 = System.nanoTime();
      FilterResult fr = placement.filter(pod, names);
      long t1 = System.nanoTime();
      Map<String, Integer> scores = placement.prioritize(pod, fr.feasible());
      long t = System.nanoTime() - t0;
      long c = cpuTime ? threads.getCurrentThreadCpuTime() - c0 : 0;
      if (i >= warmup) {
        micros[i - warmup] = t / 1000;
        filterMicros[i - warmup] = (t1 - t0) / 1000;
        cpuMicros[i - warmup] = c / 1000;
        feasible += scores.size();
      }
    }
    gcCount += gcCount(gcs);
    gcMillis += gcMillis(gcs);
    long[] sorted = micros.clone();
    Arrays.sort(sorted);
    Map<String, Object> in = new LinkedHashMap<>();
    in.put("p50Micros", percentile(sorted, 50));
    in.put("p99Micros", percentile(sorted, 99));
    in.put("maxMicros", sorted[sorted.length - 1]);
    long[] filterSorted = filterMicros.clone();
    Arrays.sort(filterSorted);
    in.put("filterP50Micros", percentile(filterSorted, 50));
    in.put("filterP99Micros", percentile(filterSorted, 99));
    if (cpuTime) {
      long[] cpuSorted = cpuMicros.clone();
      Arrays.sort(cpuSorted);
      in.put("cpuP50Micros", percentile(cpuSorted, 50));
      in.put("cpuP99Micros", percentile(cpuSorted, 99));
      in.put("cpuMaxMicros", cpuSorted[cpuSorted.length - 1]);
    }
    List<String> collectors = new ArrayList<>();
    for (GarbageCollectorMXBean gc : gcs) {
      collectors.add(gc.getName());
    }
    Map<String, Object> gc = new LinkedHashMap<>();
    gc.put("collectors", String.join(", ", collectors));
    gc.put("collections", gcCount);
    gc.put("totalMillis", gcMillis);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("nodes", nodes);
    doc.put("gpusPerNode", gpus);
    doc.put("policy", policyName);
    doc.put("occupancyPct", occupancyPct);
    doc.put("iterations", iterations);
    doc.put("meanFeasibleNodes", (double) feasible / iterations);
    doc.put("inProcess", in);
    doc.put("gcDuringTimedRuns", gc);
    doc.put("loadAverage", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    out.printf(
        Locale.ROOT,
        "filter+prioritize, %d nodes x %d GPUs, %.1f%% occupied, %s: p50 %d us, p99 %d us, max %d us%n",
        nodes,
        gpus,
        occupancyPct,
        policyName,
        in.get("p50Micros"),
        in.get("p99Micros"),
        in.get("maxMicros"));
    out.printf(
        Locale.ROOT,
        "  filter alone p50 %d us, p99 %d us; thread CPU time p50 %s us, p99 %s us, max %s us%n",
        in.get("filterP50Micros"),
        in.get("filterP99Micros"),
        in.getOrDefault("cpuP50Micros", "n/a"),
        in.getOrDefault("cpuP99Micros", "n/a"),
        in.getOrDefault("cpuMaxMicros", "n/a"));
    out.printf(
        Locale.ROOT,
        "  GC (%s) during timed runs: %d collections, %d ms; load average %.2f%n",
        gc.get("collectors"),
        gcCount,
        gcMillis,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    String json = opts.get("json");
    if (json != null) {
      Files.writeString(Path.of(json), Json.write(doc), StandardCharsets.UTF_8);
      err.println("wrote " + json);
    }
  }

  private static long gcCount(List<GarbageCollectorMXBean> gcs) {
    long n = 0;
    for (GarbageCollectorMXBean gc : gcs) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }

  private static long gcMillis(List<GarbageCollectorMXBean> gcs) {
    long n = 0;
    for (GarbageCollectorMXBean gc : gcs) {
      n += Math.max(0, gc.getCollectionTime());
    }
    return n;
  }

  static long percentile(long[] sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  /** Fills the GPUs at random to about {@code target} of their compute; returns milli used. */
  static long fill(
      Ledger ledger, List<String> names, int nodes, int gpus, double target, SplittableRandom r) {
    long used = 0;
    int uid = 0;
    for (int n = 0; n < nodes; n++) {
      String name = String.format(Locale.ROOT, "node-%05d", n);
      List<Gpu> list = new ArrayList<>(gpus);
      for (int g = 0; g < gpus; g++) {
        list.add(Gpu.whole(name + "-gpu" + g, g, MODEL, MEMORY_MIB));
      }
      ledger.putNode(new GpuNode(name, list, 0, 0));
      names.add(name);
      for (Gpu gpu : list) {
        double x = r.nextDouble();
        if (x < target * 0.75) {
          ledger.commit(alloc("u" + uid++, name, gpu, 1000, MEMORY_MIB));
          used += 1000;
        } else if (x < target * 0.75 + (1 - target * 0.75) * 0.8) {
          int left = 1000;
          int want = (int) ((target * 1000 - 1000 * target * 0.75) / 0.8 + 0.5);
          while (left > 100 && want > 0) {
            int m = Math.min(left, 100 * (1 + r.nextInt(Math.max(1, Math.min(9, want / 100)))));
            long mem = (long) Math.ceil(m * MEMORY_MIB / 1000.0);
            ledger.commit(alloc("u" + uid++, name, gpu, m, mem));
            used += m;
            left -= m;
            want -= m;
          }
        }
      }
    }
    return used;
  }

  private static Allocation alloc(String uid, String node, Gpu gpu, int milli, long mem) {
    return new Allocation(
        "bench/" + uid,
        uid,
        node,
        List.of(new ContainerGrant("main", List.of(new GpuGrant(gpu.uuid(), milli, mem)), milli)),
        AllocationState.BOUND);
  }

  static PodDemand pod(SplittableRandom r, String name) {
    GpuDemand d =
        r.nextInt(5) == 0
            ? GpuDemand.whole("main", 1, 0)
            : GpuDemand.share("main", 50 * (2 + r.nextInt(17)), 0);
    return PodDemand.of("bench/" + name, name, d);
  }
}
