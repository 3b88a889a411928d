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
import io.sharegpu.core.request.PodDemand;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * {@code heap}: fills core's state as the extender holds it for a large cluster — a {@link Ledger}
 * with the nodes and one allocation per pod (pod keys and UIDs as long as real ones), a {@link
 * Placement} and a policy that has observed every pod and filtered and prioritized once over all
 * nodes (so its caches are full) — then collects garbage and prints the heap in use, less the heap
 * in use before filling.
 */
final class HeapCommand {
  private HeapCommand() {}

  static void run(Map<String, String> opts, PrintStream out, PrintStream err) throws IOException {
    int nodes = Main.integer(opts, "nodes", 5000);
    int gpus = Main.integer(opts, "gpus-per-node", 8);
    int pods = Main.integer(opts, "pods", 50000);
    String policyName = ReplayPolicies.checked(opts.getOrDefault("policy", "sharegpu"));
    if (nodes < 1 || gpus < 1 || pods < 0) {
      throw new Main.UsageException("--nodes and --gpus-per-node must be >= 1, --pods >= 0");
    }
    int perGpu = (int) Math.ceil((double) pods / ((long) nodes * gpus));
    if (perGpu > 10) {
      throw new Main.UsageException(
          "--pods must be at most 10 per GPU (shares of at least 100m); got " + perGpu);
    }
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long before = usedAfterGc(memory);

    SplittableRandom random = new SplittableRandom(42);
    Ledger ledger = new Ledger();
    List<String> names = new ArrayList<>(nodes);
    List<List<Gpu>> gpuLists = new ArrayList<>(nodes);
    for (int n = 0; n < nodes; n++) {
      String name = String.format(Locale.ROOT, "gpu-node-%05d.cluster.example.com", n);
      List<Gpu> list = new ArrayList<>(gpus);
      for (int g = 0; g < gpus; g++) {
        list.add(
            Gpu.whole("GPU-" + uuid(random), g, LatencyCommand.MODEL, LatencyCommand.MEMORY_MIB));
      }
      ledger.putNode(new GpuNode(name, list, 0, 0));
      names.add(name);
      gpuLists.add(list);
    }
    PlacementPolicy policy = ReplayPolicies.create(policyName, 42);
    int milli = 1000 / Math.max(1, perGpu);
    long mem = LatencyCommand.MEMORY_MIB / Math.max(1, perGpu);
    for (int i = 0; i < pods; i++) {
      int slot = i % (nodes * gpus);
      int n = slot / gpus;
      Gpu gpu = gpuLists.get(n).get(slot % gpus);
      String uid = uuid(random);
      String key = "team-" + (i % 100) + "/notebook-" + Integer.toString(i, 36) + "-0";
      ledger.commit(
          new Allocation(
              key,
              uid,
              names.get(n),
              List.of(
                  new ContainerGrant("main", List.of(new GpuGrant(gpu.uuid(), milli, mem)), milli)),
              AllocationState.BOUND));
      policy.observe(PodDemand.share(key, uid, milli, mem));
    }
    Placement placement = new Placement(ledger, policy);
    PodDemand probe = PodDemand.share("team-0/probe", uuid(random), 100, 0);
    FilterResult fr = placement.filter(probe, names);
    Map<String, Integer> scores = placement.prioritize(probe, fr.feasible());

    long after = usedAfterGc(memory);
    long used = after - before;
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("nodes", nodes);
    doc.put("gpus", (long) nodes * gpus);
    doc.put("pods", ledger.allocations().size());
    doc.put("policy", policyName);
    doc.put("heapUsedMiB", used / (1024.0 * 1024.0));
    doc.put("heapUsedBytes", used);
    doc.put("feasibleNodes", scores.size());
    out.printf(
        Locale.ROOT,
        "heap in use after GC for %d nodes, %d GPUs, %d pods (ledger, placement, policy %s):"
            + " %.1f MiB%n",
        nodes,
        (long) nodes * gpus,
        ledger.allocations().size(),
        policyName,
        used / (1024.0 * 1024.0));
    // keep everything reachable until measured
    if (placement.policy() != policy || ledger.version() < 0) {
      throw new IllegalStateException();
    }
    String json = opts.get("json");
    if (json != null) {
      Files.writeString(Path.of(json), Json.write(doc), StandardCharsets.UTF_8);
      err.println("wrote " + json);
    }
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  private static String uuid(SplittableRandom r) {
    return new UUID(r.nextLong(), r.nextLong()).toString();
  }
}
