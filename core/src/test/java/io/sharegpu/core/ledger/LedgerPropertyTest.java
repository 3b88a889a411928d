package io.sharegpu.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of commits (from placement and made up), releases, state changes and node
 * updates never over-commit a GPU, never share a GPU held whole, and keep the incremental usage
 * equal to a recount from the allocations.
 */
class LedgerPropertyTest {
  private static final int SEEDS = 300;
  private static final int STEPS = 300;

  @Test
  void randomOperationsKeepTheInvariant() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      try {
        run(seed);
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
      }
    }
  }

  private static void run(long seed) {
    Random rnd = new Random(seed);
    Ledger ledger = new Ledger();
    List<GpuNode> nodes = new ArrayList<>();
    int nodeCount = 1 + rnd.nextInt(4);
    for (int n = 0; n < nodeCount; n++) {
      GpuNode node = randomNode(rnd, "n" + n);
      nodes.add(node);
      ledger.putNode(node);
    }
    Placement placement =
        new Placement(
            ledger, PolicyRegistry.ALL.create(rnd.nextBoolean() ? "binpack" : "spread", seed));
    List<String> live = new ArrayList<>();
    int next = 0;
    for (int step = 0; step < STEPS; step++) {
      int op = rnd.nextInt(10);
      if (op < 4) {
        PodDemand pod = randomPod(rnd, "p" + next, nodes);
        next++;
        Optional<Allocation> a = placement.place(pod);
        if (a.isPresent()) {
          checkFitRules(ledger, pod, a.get());
          ledger.commit(a.get()); // placement never proposes an over-commit
          live.add(pod.podUid());
        }
      } else if (op < 6) {
        Allocation a = randomAllocation(rnd, "q" + next, nodes);
        next++;
        List<List<GpuUsage>> before = snapshot(ledger, nodes);
        try {
          ledger.commit(a);
          live.add(a.podUid());
        } catch (OverCommitException e) {
          assertThat(snapshot(ledger, nodes)).isEqualTo(before);
        }
      } else if (op < 8 && !live.isEmpty()) {
        String uid = live.remove(rnd.nextInt(live.size()));
        assertThat(ledger.release(uid)).isPresent();
      } else if (op < 9 && !live.isEmpty()) {
        String uid = live.get(rnd.nextInt(live.size()));
        ledger.setState(uid, AllocationState.values()[rnd.nextInt(3)]);
      } else {
        int n = rnd.nextInt(nodes.size());
        GpuNode old = nodes.get(n);
        List<Gpu> gpus = new ArrayList<>();
        for (Gpu g : old.gpus()) {
          gpus.add(g.withHealthy(rnd.nextInt(5) != 0));
        }
        GpuNode updated = new GpuNode(old.name(), gpus, old.cpuMilli(), old.memoryMib());
        nodes.set(n, updated);
        ledger.putNode(updated);
      }
      checkInvariant(ledger, nodes);
      if (rnd.nextInt(50) == 0) {
        Ledger copy = ledger.copy();
        checkInvariant(copy, nodes);
      }
    }
  }

  private static void checkFitRules(Ledger ledger, PodDemand pod, Allocation a) {
    GpuNode node = ledger.node(a.node()).orElseThrow();
    for (ContainerGrant c : a.containers()) {
      for (GpuGrant g : c.gpus()) {
        Gpu gpu = node.gpu(g.uuid()).orElseThrow();
        assertThat(gpu.healthy()).as("placed on an unhealthy GPU").isTrue();
        if (g.isWhole()) {
          assertThat(gpu.isMig()).as("whole request on a MIG instance").isFalse();
        }
        if (!pod.models().isEmpty()) {
          assertThat(pod.models().stream().anyMatch(m -> gpu.model().toLowerCase().contains(m)))
              .as("model %s allowed by %s", gpu.model(), pod.models())
              .isTrue();
        }
      }
    }
  }

  private static void checkInvariant(Ledger ledger, List<GpuNode> nodes) {
    for (GpuNode node : nodes) {
      Map<String, long[]> sums = new HashMap<>();
      Map<String, Set<String>> holders = new HashMap<>();
      Map<String, Boolean> whole = new HashMap<>();
      for (Allocation a : ledger.allocations()) {
        if (!a.node().equals(node.name())) {
          continue;
        }
        for (ContainerGrant c : a.containers()) {
          for (GpuGrant g : c.gpus()) {
            long[] s = sums.computeIfAbsent(g.uuid(), k -> new long[2]);
            s[0] += g.computeMilli();
            s[1] += g.memoryMib();
            holders.computeIfAbsent(g.uuid(), k -> new HashSet<>()).add(a.podUid());
            if (g.isWhole()) {
              whole.put(g.uuid(), true);
            }
          }
        }
      }
      List<GpuUsage> usage = ledger.usage(node.name());
      assertThat(usage).hasSize(node.gpus().size());
      for (GpuUsage u : usage) {
        long[] s = sums.getOrDefault(u.gpu().uuid(), new long[2]);
        if (s[0] > u.gpu().computeMilli() || s[1] > u.gpu().memoryMib()) {
          fail("GPU %s over capacity: %sm/%s MiB", u.gpu().uuid(), s[0], s[1]);
        }
        if (whole.getOrDefault(u.gpu().uuid(), false)) {
          assertThat(holders.get(u.gpu().uuid())).as("whole GPU shared").hasSize(1);
        }
        assertThat(u.usedMilli()).as("incremental compute").isEqualTo(s[0]);
        assertThat(u.usedMemoryMib()).as("incremental memory").isEqualTo(s[1]);
        assertThat(u.exclusive()).isEqualTo(whole.getOrDefault(u.gpu().uuid(), false));
        assertThat(u.podKeys()).hasSize(holders.getOrDefault(u.gpu().uuid(), Set.of()).size());
      }
    }
  }

  private static List<List<GpuUsage>> snapshot(Ledger ledger, List<GpuNode> nodes) {
    List<List<GpuUsage>> out = new ArrayList<>();
    for (GpuNode n : nodes) {
      out.add(ledger.usage(n.name()));
    }
    return out;
  }

  private static GpuNode randomNode(Random rnd, String name) {
    List<Gpu> gpus = new ArrayList<>();
    int count = 1 + rnd.nextInt(8);
    int index = 0;
    for (int i = 0; i < count; i++) {
      String model = rnd.nextBoolean() ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-40GB";
      long mem = model.contains("H100") ? 81559 : 40960;
      String uuid = "GPU-" + name + "-" + i;
      if (rnd.nextInt(6) == 0) {
        gpus.add(new Gpu(uuid, index, model, mem, 1000, true, null, null));
        gpus.add(
            new Gpu("MIG-" + name + "-" + i + "a", index, model, mem / 2, 428, true, uuid, "3g"));
        gpus.add(
            new Gpu("MIG-" + name + "-" + i + "b", index, model, mem / 4, 285, true, uuid, "2g"));
      } else {
        gpus.add(new Gpu(uuid, index, model, mem, 1000, rnd.nextInt(8) != 0, null, null));
      }
      index++;
    }
    return GpuNode.of(name, gpus);
  }

  private static PodDemand randomPod(Random rnd, String name, List<GpuNode> nodes) {
    int containers = 1 + (rnd.nextInt(4) == 0 ? rnd.nextInt(3) : 0);
    List<GpuDemand> cs = new ArrayList<>();
    for (int c = 0; c < containers; c++) {
      if (rnd.nextInt(4) == 0) {
        cs.add(GpuDemand.whole("c" + c, 1 + rnd.nextInt(3), rnd.nextBoolean() ? 0 : 30000));
      } else {
        cs.add(
            GpuDemand.share(
                "c" + c, 1 + rnd.nextInt(999), rnd.nextBoolean() ? 0 : 1 + rnd.nextInt(40000)));
      }
    }
    Set<String> models =
        rnd.nextInt(4) == 0 ? Set.of(rnd.nextBoolean() ? "h100" : "a100") : Set.of();
    return new PodDemand("ns/" + name, name, cs, models, Set.of(), Set.of(), 0, 0);
  }

  /** A made-up allocation, often invalid: the ledger must refuse those. */
  private static Allocation randomAllocation(Random rnd, String name, List<GpuNode> nodes) {
    GpuNode node = nodes.get(rnd.nextInt(nodes.size()));
    Gpu gpu = node.gpus().get(rnd.nextInt(node.gpus().size()));
    GpuGrant grant =
        rnd.nextInt(4) == 0
            ? new GpuGrant(gpu.uuid(), 1000, gpu.memoryMib())
            : new GpuGrant(
                gpu.uuid(), 1 + rnd.nextInt(1000), rnd.nextInt((int) gpu.memoryMib() + 1));
    return new Allocation(
        "ns/" + name,
        name,
        node.name(),
        List.of(new ContainerGrant("main", List.of(grant), grant.computeMilli())),
        AllocationState.RESERVED);
  }
}
