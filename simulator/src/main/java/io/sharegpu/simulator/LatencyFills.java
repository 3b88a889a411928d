package io.sharegpu.simulator;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The clusters {@code latency} times, all of identical H100 nodes without host capacities:
 *
 * <ul>
 *   <li>{@code synthetic}: each GPU whole, in equal-ish shares of 100m steps, or idle (few node
 *       states: a best case for the class cache);
 *   <li>{@code trace:FILE}: filled to the occupancy by the policy itself placing pods drawn at
 *       random from a trace pod list (GPU pods only; a share's memory proportional to its compute),
 *       until the occupancy is reached or a thousand pods in a row fit nowhere;
 *   <li>{@code distinct}: every GPU holds 1..3 shares of compute in 10m steps and memory of any
 *       MiB, so that nearly every node is in a state of its own (the worst case for the class
 *       cache).
 * </ul>
 *
 * And the pods asked for: {@code mix} (one in five a whole GPU, the others a share of 100m..900m),
 * {@code share:MILLI:MIB} or {@code whole:N}.
 *
 * <p>The JMH benchmarks of {@code core-benchmarks} build their clusters here too, so that both time
 * the same states.
 */
public final class LatencyFills {
  /** The model of every GPU. */
  public static final String MODEL = "NVIDIA H100 80GB HBM3";

  /** The memory of every GPU. */
  public static final long MEMORY_MIB = 81559;

  private LatencyFills() {}

  /** The idle nodes {@code node-00000...}, each with {@code gpus} H100s. */
  public static List<GpuNode> nodes(int nodes, int gpus) {
    List<GpuNode> out = new ArrayList<>(nodes);
    for (int n = 0; n < nodes; n++) {
      String name = String.format(Locale.ROOT, "node-%05d", n);
      List<Gpu> list = new ArrayList<>(gpus);
      for (int g = 0; g < gpus; g++) {
        list.add(Gpu.whole(name + "-gpu" + g, g, MODEL, MEMORY_MIB));
      }
      out.add(new GpuNode(name, list, 0, 0));
    }
    return out;
  }

  /**
   * A ledger holding {@code nodes}, filled as {@code fill} ({@code synthetic}, {@code distinct} or
   * {@code trace:FILE}) says to about {@code target} (0..1) of the compute.
   */
  public static Ledger filled(
      String fill, List<GpuNode> nodes, double target, PlacementPolicy policy, SplittableRandom r)
      throws IOException {
    Ledger ledger = ledger(nodes, List.of());
    fill(fill, ledger, nodes, target, policy, r);
    return ledger;
  }

  /** A ledger with the nodes and the allocations committed. */
  public static Ledger ledger(List<GpuNode> nodes, List<Allocation> allocations) {
    Ledger ledger = new Ledger();
    for (GpuNode n : nodes) {
      ledger.putNode(n);
    }
    for (Allocation a : allocations) {
      ledger.commit(a);
    }
    return ledger;
  }

  /**
   * Fills the ledger (holding {@code nodes}, idle) as {@code fill} says to about {@code target}
   * (0..1) of the compute; returns the milli used.
   */
  static long fill(
      String fill,
      Ledger ledger,
      List<GpuNode> nodes,
      double target,
      PlacementPolicy policy,
      SplittableRandom r)
      throws IOException {
    if (fill.equals("synthetic")) {
      return synthetic(ledger, nodes, target, r);
    }
    if (fill.equals("distinct")) {
      return distinct(ledger, nodes, target, r);
    }
    if (fill.startsWith("trace:") && fill.length() > "trace:".length()) {
      List<TracePod> pods = new ArrayList<>();
      for (TracePod p : TraceFiles.readPods(Path.of(fill.substring("trace:".length())))) {
        if (p.numGpu() > 0) {
          pods.add(p);
        }
      }
      if (pods.isEmpty()) {
        throw new Main.UsageException("--fill " + fill + ": the pod list has no GPU pods");
      }
      return trace(ledger, nodes, target, pods, policy, r);
    }
    throw new Main.UsageException(
        "--fill must be synthetic, trace:FILE or distinct, got '" + fill + "'");
  }

  /** Whole GPUs, shares of 100m steps, or idle, at random. */
  static long synthetic(Ledger ledger, List<GpuNode> nodes, double target, SplittableRandom r) {
    return commit(ledger, synthetic(nodes, target, r));
  }

  /** The allocations of the {@code synthetic} fill: whole GPUs, shares of 100m steps, or idle. */
  public static List<Allocation> synthetic(List<GpuNode> nodes, double target, SplittableRandom r) {
    List<Allocation> out = new ArrayList<>();
    int uid = 0;
    for (GpuNode node : nodes) {
      for (Gpu gpu : node.gpus()) {
        double x = r.nextDouble();
        if (x < target * 0.75) {
          out.add(alloc("u" + uid++, node.name(), gpu, 1000, MEMORY_MIB));
        } else if (x < target * 0.75 + (1 - target * 0.75) * 0.8) {
          int left = 1000;
          int want = (int) ((target * 1000 - 1000 * target * 0.75) / 0.8 + 0.5);
          while (left > 100 && want > 0) {
            int m = Math.min(left, 100 * (1 + r.nextInt(Math.max(1, Math.min(9, want / 100)))));
            long mem = (long) Math.ceil(m * MEMORY_MIB / 1000.0);
            out.add(alloc("u" + uid++, node.name(), gpu, m, mem));
            left -= m;
            want -= m;
          }
        }
      }
    }
    return out;
  }

  private static long commit(Ledger ledger, List<Allocation> allocations) {
    long used = 0;
    for (Allocation a : allocations) {
      ledger.commit(a);
      used += a.containers().get(0).gpus().get(0).computeMilli();
    }
    return used;
  }

  /** 1..3 shares per GPU, compute in 10m steps averaging {@code target}, memory any MiB. */
  static long distinct(Ledger ledger, List<GpuNode> nodes, double target, SplittableRandom r) {
    return commit(ledger, distinct(nodes, target, r));
  }

  /** The allocations of the {@code distinct} fill: nearly every node in a state of its own. */
  public static List<Allocation> distinct(List<GpuNode> nodes, double target, SplittableRandom r) {
    List<Allocation> out = new ArrayList<>();
    int uid = 0;
    for (GpuNode node : nodes) {
      for (Gpu gpu : node.gpus()) {
        int shares = 1 + r.nextInt(3);
        // the GPU's total: uniform within 300m of the target, in 10m steps, 10m per share at least
        int total = (int) Math.round((target + 0.6 * (r.nextDouble() - 0.5)) * 100) * 10;
        total = Math.max(10 * shares, Math.min(1000, total));
        int leftMilli = total;
        long leftMem = MEMORY_MIB * total / 1000;
        for (int s = shares; s > 0; s--) {
          int m =
              s == 1 ? leftMilli : 10 * (1 + r.nextInt(Math.max(1, (leftMilli - 10 * s) / 10 + 1)));
          m = Math.min(m, leftMilli - 10 * (s - 1));
          long mem = s == 1 ? leftMem : 1 + r.nextLong(Math.max(1, leftMem - s));
          out.add(alloc("u" + uid++, node.name(), gpu, m, Math.max(1, mem)));
          leftMilli -= m;
          leftMem = Math.max(s, leftMem - mem);
        }
      }
    }
    return out;
  }

  /** The policy places pods drawn from the trace until the target or a thousand misses in a row. */
  static long trace(
      Ledger ledger,
      List<GpuNode> nodes,
      double target,
      List<TracePod> pods,
      PlacementPolicy policy,
      SplittableRandom r) {
    long capacity = 0;
    for (GpuNode n : nodes) {
      capacity += 1000L * n.gpus().size();
    }
    long goal = (long) (target * capacity);
    Placement placement = new Placement(ledger, policy);
    long used = 0;
    int misses = 0;
    for (int i = 0; used < goal && misses < 1000; i++) {
      TracePod t = pods.get(r.nextInt(pods.size()));
      PodDemand pod = demand(t, "fill-" + i);
      policy.observe(pod);
      Optional<Allocation> a = placement.place(pod);
      if (a.isEmpty()) {
        misses++;
        continue;
      }
      misses = 0;
      ledger.commit(a.get());
      used += t.gpuRequestMilli();
    }
    return used;
  }

  /** The trace pod as a demand: a share's memory in proportion to its compute. */
  static PodDemand demand(TracePod t, String name) {
    GpuDemand d =
        t.gpuMilli() < 1000
            ? GpuDemand.share(
                "main", t.gpuMilli(), (long) Math.ceil(t.gpuMilli() * MEMORY_MIB / 1000.0))
            : GpuDemand.whole("main", t.numGpu(), 0);
    return PodDemand.of("trace/" + name, name, d);
  }

  /** Makes the pods asked for by {@code --request}. */
  interface Requests {
    PodDemand next(SplittableRandom r, String name);
  }

  static Requests requests(String spec) {
    if (spec.equals("mix")) {
      return LatencyFills::mix;
    }
    String[] p = spec.split(":", -1);
    try {
      if (p.length == 3 && p[0].equals("share")) {
        int milli = Integer.parseInt(p[1]);
        long mib = Long.parseLong(p[2]);
        if (milli > 0 && milli < 1000 && mib >= 0) {
          return (r, name) ->
              PodDemand.of("bench/" + name, name, GpuDemand.share("main", milli, mib));
        }
      } else if (p.length == 2 && p[0].equals("whole")) {
        int n = Integer.parseInt(p[1]);
        if (n > 0) {
          return (r, name) -> PodDemand.of("bench/" + name, name, GpuDemand.whole("main", n, 0));
        }
      }
    } catch (NumberFormatException e) {
      // falls through to the usage error
    }
    throw new Main.UsageException(
        "--request must be mix, share:MILLI:MIB (1..999 milli) or whole:N, got '" + spec + "'");
  }

  /** One in five a whole GPU, the others a share of 100m..900m. */
  public static PodDemand mix(SplittableRandom r, String name) {
    GpuDemand d =
        r.nextInt(5) == 0
            ? GpuDemand.whole("main", 1, 0)
            : GpuDemand.share("main", 50 * (2 + r.nextInt(17)), 0);
    return PodDemand.of("bench/" + name, name, d);
  }

  /** The number of distinct node states (as the class cache counts them). */
  static int stateClasses(Ledger ledger, List<String> names) {
    Set<Integer> ids = new HashSet<>();
    for (String n : names) {
      ids.add(ledger.stateClass(ledger.nodeSlot(n)));
    }
    return ids.size();
  }

  /** A bound one-container allocation of {@code milli} and {@code mem} on {@code gpu}. */
  public static Allocation alloc(String uid, String node, Gpu gpu, int milli, long mem) {
    return new Allocation(
        "bench/" + uid,
        uid,
        node,
        List.of(new ContainerGrant("main", List.of(new GpuGrant(gpu.uuid(), milli, mem)), milli)),
        AllocationState.BOUND);
  }
}
