package io.sharegpu.benchmarks;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The benchmark cluster: identical nodes of H100s filled at random to about a target share of their
 * compute with whole GPUs and shares (the same cluster as the simulator's {@code latency} command),
 * and the pod mix asked for: one in five a whole GPU, the others a share of 100m..900m.
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
