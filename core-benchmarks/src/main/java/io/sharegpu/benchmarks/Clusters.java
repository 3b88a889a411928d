package io.sharegpu.benchmarks;

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
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The benchmark clusters, the same as the simulator's {@code latency --fill}: identical nodes of
 * H100s filled to about a target share of their compute, {@code synthetic} (at random with whole
 * GPUs and shares of 100m steps: few node states), {@code trace} (by the policy itself placing pods
 * drawn from a trace pod list) or {@code distinct} (1..3 shares per GPU, compute in 10m steps,
 * memory of any MiB: nearly every node in a state of its own); and the pod mix asked for: one in
 * five a whole GPU, the others a share of 100m..900m.
 */
final class Clusters {
  static final String MODEL = "NVIDIA H100 80GB HBM3";
  static final long MEMORY_MIB = 81559;

  private Clusters() {}

  /** The nodes, each with {@code gpus} idle GPUs. */
  static List<GpuNode> nodes(int nodes, int gpus) {
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

  /** Allocations filling {@code nodes} to about {@code target} (0..1) of their compute. */
  static List<Allocation> fill(List<GpuNode> nodes, double target, SplittableRandom r) {
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

  /**
   * A ledger with the nodes filled as {@code fill} says: {@code synthetic}, {@code distinct} or
   * {@code trace} (pods drawn from the pod list {@code traceFile}, placed by {@code policy}).
   */
  static Ledger filled(
      String fill,
      List<GpuNode> nodes,
      double target,
      PlacementPolicy policy,
      String traceFile,
      SplittableRandom r) {
    return switch (fill) {
      case "synthetic" -> ledger(nodes, fill(nodes, target, r));
      case "distinct" -> ledger(nodes, distinct(nodes, target, r));
      case "trace" -> traced(nodes, target, tracePods(Path.of(traceFile)), policy, r);
      default -> throw new IllegalArgumentException("unknown fill " + fill);
    };
  }

  /** 1..3 shares per GPU, compute in 10m steps within 300m of {@code target}, memory any MiB. */
  static List<Allocation> distinct(List<GpuNode> nodes, double target, SplittableRandom r) {
    List<Allocation> out = new ArrayList<>();
    int uid = 0;
    for (GpuNode node : nodes) {
      for (Gpu gpu : node.gpus()) {
        int shares = 1 + r.nextInt(3);
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

  /** The GPU pods of a trace pod list, as {@code {num_gpu, gpu_milli}}. */
  static List<int[]> tracePods(Path file) {
    List<int[]> out = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = in.readLine();
      List<String> cols = Arrays.asList(header == null ? new String[0] : header.strip().split(","));
      int num = cols.indexOf("num_gpu");
      int milli = cols.indexOf("gpu_milli");
      if (num < 0 || milli < 0) {
        throw new IllegalArgumentException(file + ": no num_gpu and gpu_milli columns");
      }
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] f = line.split(",", -1);
        int n = Integer.parseInt(f[num].strip());
        int m = Integer.parseInt(f[milli].strip());
        if (n > 0 && m > 0) {
          out.add(new int[] {n, m});
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * The nodes filled by {@code policy} placing pods drawn from {@code pods} (a share's memory in
   * proportion to its compute) until {@code target} or a thousand misses in a row.
   */
  static Ledger traced(
      List<GpuNode> nodes,
      double target,
      List<int[]> pods,
      PlacementPolicy policy,
      SplittableRandom r) {
    Ledger ledger = ledger(nodes, List.of());
    long capacity = 0;
    for (GpuNode n : nodes) {
      capacity += 1000L * n.gpus().size();
    }
    Placement placement = new Placement(ledger, policy);
    long used = 0;
    int misses = 0;
    for (int i = 0; used < target * capacity && misses < 1000; i++) {
      int[] t = pods.get(r.nextInt(pods.size()));
      String name = "fill-" + i;
      GpuDemand d =
          t[1] < 1000
              ? GpuDemand.share("main", t[1], (long) Math.ceil(t[1] * MEMORY_MIB / 1000.0))
              : GpuDemand.whole("main", t[0], 0);
      PodDemand pod = PodDemand.of("trace/" + name, name, d);
      policy.observe(pod);
      Optional<Allocation> a = placement.place(pod);
      if (a.isEmpty()) {
        misses++;
        continue;
      }
      misses = 0;
      ledger.commit(a.get());
      used += (long) t[0] * t[1];
    }
    return ledger;
  }

  /** A ledger with the nodes and the allocations committed. */
  static Ledger ledger(List<GpuNode> nodes, List<Allocation> allocations) {
    Ledger ledger = new Ledger();
    for (GpuNode n : nodes) {
      ledger.putNode(n);
    }
    for (Allocation a : allocations) {
      ledger.commit(a);
    }
    return ledger;
  }

  static Allocation alloc(String uid, String node, Gpu gpu, int milli, long mem) {
    return new Allocation(
        "bench/" + uid,
        uid,
        node,
        List.of(new ContainerGrant("main", List.of(new GpuGrant(gpu.uuid(), milli, mem)), milli)),
        AllocationState.BOUND);
  }

  /** A pod of the benchmark mix. */
  static PodDemand pod(SplittableRandom r, String name) {
    GpuDemand d =
        r.nextInt(5) == 0
            ? GpuDemand.whole("main", 1, 0)
            : GpuDemand.share("main", 50 * (2 + r.nextInt(17)), 0);
    return PodDemand.of("bench/" + name, name, d);
  }
}
