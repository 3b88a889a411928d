package io.sharegpu.core.bench;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.OverCommitException;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Measures what the scheduler extender does per pod: {@code filter} then {@code prioritize} over
 * every node of a large cluster. Not a test; run it with
 *
 * <pre>
 * ./mvnw -B -ntp -q -pl core test-compile
 * java -cp core/target/classes:core/target/test-classes \
 *     io.sharegpu.core.bench.PlacementBenchmark [nodes] [occupancy] [policy]
 * </pre>
 *
 * Defaults: 5000 nodes of 8 H100s, 70% of the cluster's compute held, policy binpack. Prints the
 * median and 99th percentile of the CPU time per pod after warm-up (CPU time, so that other load on
 * the machine does not count).
 */
public final class PlacementBenchmark {
  private PlacementBenchmark() {}

  public static void main(String[] args) {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    double occupancy = args.length > 1 ? Double.parseDouble(args[1]) : 0.7;
    String policy = args.length > 2 ? args[2] : "binpack";
    Ledger ledger = cluster(nodes, occupancy, new Random(42));
    List<String> names = new ArrayList<>(ledger.nodeNames());
    Placement placement = new Placement(ledger, PolicyRegistry.ALL.create(policy, 1));
    PodDemand[] pods = {
      PodDemand.share("bench/share", "u-share", 250, 0),
      PodDemand.share("bench/share-mem", "u-share-mem", 100, 30000),
      PodDemand.of("bench/whole2", "u-whole2", GpuDemand.whole("main", 2, 0)),
      PodDemand.of(
          "bench/multi",
          "u-multi",
          GpuDemand.share("a", 300, 0),
          GpuDemand.share("b", 200, 0),
          GpuDemand.whole("c", 1, 0)),
    };
    System.out.printf(
        "cluster: %d nodes x 8 GPUs, %d allocations, policy %s%n",
        nodes, ledger.allocations().size(), policy);
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    for (PodDemand pod : pods) {
      int feasible = 0;
      for (int i = 0; i < 300; i++) { // warm-up
        feasible = run(placement, pod, names);
      }
      long[] t = new long[500];
      for (int i = 0; i < t.length; i++) {
        long s = cpu.getCurrentThreadCpuTime();
        run(placement, pod, names);
        t[i] = cpu.getCurrentThreadCpuTime() - s;
      }
      Arrays.sort(t);
      System.out.printf(
          "%-18s feasible %5d  filter+prioritize CPU median %.3f ms  p99 %.3f ms%n",
          pod.podKey(), feasible, t[t.length / 2] / 1e6, t[t.length * 99 / 100] / 1e6);
    }
  }

  private static int run(Placement placement, PodDemand pod, List<String> names) {
    FilterResult r = placement.filter(pod, names);
    Map<String, Integer> scores = placement.prioritize(pod, r.feasible());
    if (scores.size() != r.feasible().size()) {
      throw new IllegalStateException("lost scores");
    }
    // the ledger does not change between calls: force the work a new pod costs
    placement.filter(PodDemand.share("bench/other", "u-other", 1, 1), List.of());
    return r.feasible().size();
  }

  static Ledger cluster(int nodes, double occupancy, Random rnd) {
    Ledger ledger = new Ledger();
    for (int n = 0; n < nodes; n++) {
      List<Gpu> gpus = new ArrayList<>(8);
      for (int g = 0; g < 8; g++) {
        gpus.add(Gpu.whole("GPU-" + n + "-" + g, g, "NVIDIA H100 80GB HBM3", 81559));
      }
      ledger.putNode(GpuNode.of("node-" + n, gpus));
    }
    long target = (long) (occupancy * nodes * 8 * 1000);
    long held = 0;
    int uid = 0;
    Placement fill = new Placement(ledger, PolicyRegistry.ALL.create("spread", 0));
    List<String> names = new ArrayList<>(ledger.nodeNames());
    while (held < target) {
      String node = names.get(rnd.nextInt(names.size()));
      int milli = rnd.nextInt(10) == 0 ? 1000 : 100 + 50 * rnd.nextInt(15);
      PodDemand pod =
          milli == 1000
              ? PodDemand.of("fill/" + uid, "f" + uid, GpuDemand.whole("main", 1, 0))
              : PodDemand.share("fill/" + uid, "f" + uid, milli, 0);
      uid++;
      Allocation a = fill.choose(pod, node).orElse(null);
      if (a == null) {
        continue;
      }
      try {
        ledger.commit(a);
        held += milli;
      } catch (OverCommitException e) {
        throw new IllegalStateException(e);
      }
    }
    return ledger;
  }
}
