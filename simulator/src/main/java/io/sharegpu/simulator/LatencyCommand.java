package io.sharegpu.simulator;

import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
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
 * {@code latency}: builds a cluster of identical nodes at about the given GPU occupancy, filled as
 * {@code --fill} says ({@link LatencyFills}: synthetic, placed from a trace, or every node
 * distinct), then times {@link Placement#filter} followed by {@link Placement#prioritize} over
 * every node for one pod at a time, in-process, as the extender runs them for one scheduling cycle,
 * for pods as {@code --request} says. Prints p50, p99, mean and max, the mean feasible count and
 * the number of node states.
 */
final class LatencyCommand {
  static final String MODEL = LatencyFills.MODEL;
  static final long MEMORY_MIB = LatencyFills.MEMORY_MIB;

  private LatencyCommand() {}

  static void run(Map<String, String> opts, PrintStream out, PrintStream err) throws IOException {
    int nodes = Main.integer(opts, "nodes", 5000);
    int gpus = Main.integer(opts, "gpus-per-node", 8);
    int occupancy = Main.integer(opts, "occupancy", 70);
    int iterations = Main.integer(opts, "iterations", 2000);
    String policyName = ReplayPolicies.checked(opts.getOrDefault("policy", "sharegpu"));
    String fillName = opts.getOrDefault("fill", "synthetic");
    String requestName = opts.getOrDefault("request", "mix");
    LatencyFills.Requests requests = LatencyFills.requests(requestName);
    if (nodes < 1 || gpus < 1 || occupancy < 0 || occupancy > 100 || iterations < 1) {
      throw new Main.UsageException(
          "--nodes, --gpus-per-node, --iterations must be >= 1 and --occupancy 0..100");
    }
    SplittableRandom random = new SplittableRandom(42);
    Ledger ledger = new Ledger();
    List<GpuNode> idle = LatencyFills.nodes(nodes, gpus);
    List<String> names = new ArrayList<>(nodes);
    for (GpuNode n : idle) {
      ledger.putNode(n);
      names.add(n.name());
    }
    PlacementPolicy policy = ReplayPolicies.create(policyName, 42);
    long f0 = System.nanoTime();
    long used = LatencyFills.fill(fillName, ledger, idle, occupancy / 100.0, policy, random);
    long fillMillis = (System.nanoTime() - f0) / 1_000_000;
    double occupancyPct = used * 100.0 / (1000L * nodes * gpus);
    int stateClasses = LatencyFills.stateClasses(ledger, names);
    for (int i = 0; i < 1000; i++) {
      policy.observe(requests.next(random, "warm-" + i));
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
        "latency: %d nodes x %d GPUs, fill %s at %.1f%% occupancy (%d node states, filled in"
            + " %d ms), request %s, policy %s, %d warm-up + %d timed%n",
        nodes,
        gpus,
        fillName,
        occupancyPct,
        stateClasses,
        fillMillis,
        requestName,
        policyName,
        warmup,
        iterations);
    for (int i = 0; i < warmup + iterations; i++) {
      if (i == warmup) {
        gcCount = -gcCount(gcs);
        gcMillis = -gcMillis(gcs);
      }
      PodDemand pod = requests.next(random, "p-" + i);
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
    in.put("meanMicros", mean(micros));
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
    doc.put("fill", fillName);
    doc.put("request", requestName);
    doc.put("occupancyPct", occupancyPct);
    doc.put("stateClasses", stateClasses);
    doc.put("iterations", iterations);
    doc.put("meanFeasibleNodes", (double) feasible / iterations);
    doc.put("inProcess", in);
    doc.put("gcDuringTimedRuns", gc);
    doc.put("loadAverage", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    out.printf(
        Locale.ROOT,
        "filter+prioritize, %d nodes x %d GPUs, fill %s %.1f%% occupied (%d node states),"
            + " request %s, %s: p50 %d us, p99 %d us, mean %.1f us, max %d us; feasible %.1f%n",
        nodes,
        gpus,
        fillName,
        occupancyPct,
        stateClasses,
        requestName,
        policyName,
        in.get("p50Micros"),
        in.get("p99Micros"),
        in.get("meanMicros"),
        in.get("maxMicros"),
        (double) feasible / iterations);
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

  static double mean(long[] values) {
    double sum = 0;
    for (long v : values) {
      sum += v;
    }
    return values.length == 0 ? 0 : sum / values.length;
  }

  static long percentile(long[] sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
