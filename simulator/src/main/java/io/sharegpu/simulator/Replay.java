package io.sharegpu.simulator;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.FgdPolicy;
import io.sharegpu.core.policy.Fragmentation;
import io.sharegpu.core.policy.HostOnlyScore;
import io.sharegpu.core.policy.PodShape;
import io.sharegpu.core.policy.ShareGpuPolicy;
import io.sharegpu.core.policy.Workload;
import io.sharegpu.core.policy.WorkloadAware;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Replays a pod list on a node list by the FGD paper's protocol: nodes shuffled with the seed; pods
 * sorted by name, shuffled with the seed, then random copies appended until the GPU request reaches
 * 130% of capacity; each pod placed once (or dropped) by the policy through {@link Placement}, with
 * no departures. Pods without GPUs are placed with {@link HostOnlyScore} and take their CPU and
 * memory off the node's capacity.
 *
 * <p>Each GPU has 1000 MiB of memory, so that a share's default memory equals its compute: the
 * trace does not model GPU memory.
 */
public final class Replay {
  /** First point of the curve, % of capacity arrived. */
  public static final int CURVE_FROM = 75;

  /** Last point of the curve. */
  public static final int CURVE_TO = 130;

  private static final long GPU_MEMORY_MIB = 1000;

  private final List<TraceNode> nodes;
  private final List<TracePod> pods;
  private final List<PodShape> shapes;
  private final Workload fragmentModel;
  private final long capacityMilli;
  private final long medianGpuPodCpu;
  private final long medianGpuPodMemory;

  /** A replay of {@code pods} on the GPU nodes of {@code nodes}. */
  public Replay(List<TraceNode> nodes, List<TracePod> pods) {
    List<TraceNode> gpuNodes = new ArrayList<>();
    long cap = 0;
    for (TraceNode n : nodes) {
      if (n.gpus() > 0) {
        gpuNodes.add(n);
        cap += 1000L * n.gpus();
      }
    }
    if (gpuNodes.isEmpty()) {
      throw new IllegalArgumentException("the node list has no node with GPUs");
    }
    if (pods.isEmpty()) {
      throw new IllegalArgumentException("the pod list is empty");
    }
    this.nodes = List.copyOf(gpuNodes);
    this.pods = List.copyOf(pods);
    this.capacityMilli = cap;
    List<PodShape> s = new ArrayList<>(pods.size());
    for (TracePod p : pods) {
      s.add(p.shape());
    }
    this.shapes = List.copyOf(s);
    this.fragmentModel = Workload.fit(shapes, FgdPolicy.COVERAGE);
    long[] cpu =
        pods.stream().filter(p -> p.numGpu() > 0).mapToLong(TracePod::cpuMilli).sorted().toArray();
    long[] mem =
        pods.stream().filter(p -> p.numGpu() > 0).mapToLong(TracePod::memoryMib).sorted().toArray();
    this.medianGpuPodCpu = cpu.length == 0 ? 0 : cpu[cpu.length / 2];
    this.medianGpuPodMemory = mem.length == 0 ? 0 : mem[mem.length / 2];
  }

  /** Number of GPU nodes. */
  public int nodeCount() {
    return nodes.size();
  }

  /** Total GPU compute of the cluster, in milli. */
  public long capacityMilli() {
    return capacityMilli;
  }

  /** A pod as it arrives: the trace row and its copy number (0 = the original). */
  record Arrival(TracePod pod, int copy) {
    String name() {
      return copy == 0 ? pod.name() : pod.name() + "-copy" + copy;
    }
  }

  /** The arrival sequence of one run. */
  List<Arrival> arrivals(Random random) {
    List<TracePod> sorted = new ArrayList<>(pods);
    sorted.sort(Comparator.comparing(TracePod::name));
    Collections.shuffle(sorted, random);
    List<Arrival> out = new ArrayList<>();
    long total = 0;
    for (TracePod p : sorted) {
      out.add(new Arrival(p, 0));
      total += p.gpuRequestMilli();
    }
    long target = capacityMilli * 13 / 10;
    boolean trimmed = total > target;
    while (total > target && !out.isEmpty()) {
      total -= out.remove(out.size() - 1).pod().gpuRequestMilli();
    }
    int[] copies = new int[sorted.size()];
    boolean anyGpu = total > 0 || sorted.stream().anyMatch(p -> p.gpuRequestMilli() > 0);
    while (anyGpu && !trimmed && total < target) {
      int i = random.nextInt(sorted.size());
      TracePod p = sorted.get(i);
      out.add(new Arrival(p, ++copies[i]));
      total += p.gpuRequestMilli();
    }
    return out;
  }

  /** Runs the replay with a fresh policy of this name and seed. */
  public SeedResult run(String policyName, long seed) {
    long start = System.nanoTime();
    Random random = new Random(seed);
    List<TraceNode> order = new ArrayList<>(nodes);
    Collections.shuffle(order, random);
    Ledger ledger = new Ledger();
    for (TraceNode n : order) {
      ledger.putNode(gpuNode(n));
    }
    List<Arrival> arrivals = arrivals(random);
    PlacementPolicy policy = SimulatorPolicies.byName(policyName, seed);
    if (policy instanceof WorkloadAware aware) {
      aware.prime(shapes);
    }
    Placement placement = new Placement(ledger, policy);
    double[] curve = new double[CURVE_TO - CURVE_FROM + 1];
    Arrays.fill(curve, Double.NaN);
    int point = 0;
    long arrived = 0;
    long allocated = 0;
    int placed = 0;
    int failed = 0;
    double at100 = Double.NaN;
    double ratio100 = Double.NaN;
    double frag80 = Double.NaN;
    double empty100 = Double.NaN;
    int touched100 = -1;
    double[] stranded100 = {Double.NaN, Double.NaN};
    double empty50 = Double.NaN;
    int touched50 = -1;
    Set<String> touched = new HashSet<>();
    for (Arrival a : arrivals) {
      TracePod p = a.pod();
      arrived += p.gpuRequestMilli();
      boolean ok;
      if (p.numGpu() == 0) {
        if (policy instanceof ShareGpuPolicy online) {
          online.observe(p.shape());
        }
        String node = placeHostOnly(ledger, policy, p);
        ok = node != null;
        if (ok) {
          touched.add(node);
        }
      } else {
        PodDemand d = demand(a);
        policy.observe(d);
        Optional<Allocation> alloc = placement.place(d);
        ok = alloc.isPresent();
        if (ok) {
          ledger.commit(alloc.get(), p.cpuMilli(), p.memoryMib());
          allocated += p.gpuRequestMilli();
          touched.add(alloc.get().node());
        }
      }
      if (ok) {
        placed++;
      } else {
        failed++;
      }
      while (point < curve.length && arrived * 100 >= (CURVE_FROM + point) * capacityMilli) {
        curve[point++] = 100 - allocated * 100.0 / capacityMilli;
      }
      if (touched50 < 0 && arrived * 2 >= capacityMilli) {
        empty50 = emptyGpuPct(ledger);
        touched50 = touched.size();
      }
      if (Double.isNaN(frag80) && arrived * 100 >= 80 * capacityMilli) {
        frag80 = fragmentationRatePct(ledger);
      }
      if (Double.isNaN(at100) && arrived >= capacityMilli) {
        at100 = 100 - allocated * 100.0 / capacityMilli;
        ratio100 = allocated * 100.0 / arrived;
        empty100 = emptyGpuPct(ledger);
        touched100 = touched.size();
        stranded100 = strandedPct(ledger);
      }
    }
    return new SeedResult(
        seed,
        arrivals.size(),
        placed,
        failed,
        at100,
        ratio100,
        frag80,
        empty50,
        touched50,
        empty100,
        touched100,
        stranded100[0],
        stranded100[1],
        curve,
        (System.nanoTime() - start) / 1_000_000);
  }

  /** FGD's fragment summed over the nodes ÷ free GPU compute, in %. */
  double fragmentationRatePct(Ledger ledger) {
    double frag = 0;
    long free = 0;
    for (String name : ledger.nodeNames()) {
      NodeView v = view(ledger.nodeUsage(name));
      frag += Fragmentation.of(v, fragmentModel);
      free += Fragmentation.freeMilli(v);
    }
    return free == 0 ? 0 : frag * 100 / free;
  }

  /**
   * Free GPU compute, % of capacity, on nodes whose free host CPU is below the median CPU request
   * of the list's GPU pods ([0]), and on the other nodes whose free host memory is below the median
   * memory request ([1]): GPU capacity that a typical GPU pod could not reach for lack of host
   * resources.
   */
  double[] strandedPct(Ledger ledger) {
    long cpuStranded = 0;
    long memStranded = 0;
    for (String name : ledger.nodeNames()) {
      NodeUsage u = ledger.nodeUsage(name);
      if (u == null) {
        continue;
      }
      long free = 0;
      for (int i = 0, n = u.size(); i < n; i++) {
        if (!u.isExclusive(i)) {
          free += Math.max(0, u.computeMilli(i) - u.usedMilli(i));
        }
      }
      if (u.freeCpuMilli() < medianGpuPodCpu) {
        cpuStranded += free;
      } else if (u.freeHostMemoryMib() < medianGpuPodMemory) {
        memStranded += free;
      }
    }
    return new double[] {cpuStranded * 100.0 / capacityMilli, memStranded * 100.0 / capacityMilli};
  }

  /** GPUs that no pod holds any part of, % of all GPUs (the GPUs that could be powered down). */
  static double emptyGpuPct(Ledger ledger) {
    long gpus = 0;
    long empty = 0;
    for (String name : ledger.nodeNames()) {
      NodeUsage u = ledger.nodeUsage(name);
      if (u == null) {
        continue;
      }
      for (int i = 0, n = u.size(); i < n; i++) {
        gpus++;
        if (u.holderCount(i) == 0) {
          empty++;
        }
      }
    }
    return gpus == 0 ? 0 : empty * 100.0 / gpus;
  }

  /** Places a pod without GPUs; returns its node, or null when none has its CPU and memory. */
  private static @Nullable String placeHostOnly(Ledger ledger, PlacementPolicy policy, TracePod p) {
    HostOnlyScore scorer = policy instanceof HostOnlyScore h ? h : null;
    NodeUsage best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (String name : ledger.nodeNames()) {
      NodeUsage u = ledger.nodeUsage(name);
      if (u == null || u.freeCpuMilli() < p.cpuMilli() || u.freeHostMemoryMib() < p.memoryMib()) {
        continue;
      }
      if (scorer == null) {
        best = u;
        break;
      }
      double s = scorer.scoreHostOnly(view(u), p.cpuMilli(), p.memoryMib());
      if (best == null || s > bestScore) {
        best = u;
        bestScore = s;
      }
    }
    if (best == null) {
      return null;
    }
    GpuNode n = best.node();
    ledger.putNode(
        new GpuNode(
            n.name(),
            n.gpus(),
            reduce(n.cpuMilli(), p.cpuMilli()),
            reduce(n.memoryMib(), p.memoryMib())));
    return n.name();
  }

  /** Capacity left for GPU pods; stays at least 1 so that the node keeps tracking it. */
  private static long reduce(long capacity, long taken) {
    return capacity == 0 ? 0 : Math.max(1, capacity - taken);
  }

  private static NodeView view(NodeUsage u) {
    GpuNode n = u.node();
    return new NodeView(
        n,
        u.usage(),
        n.cpuMilli() == 0 ? 0 : u.freeCpuMilli(),
        n.memoryMib() == 0 ? 0 : u.freeHostMemoryMib());
  }

  static GpuNode gpuNode(TraceNode n) {
    List<Gpu> gpus = new ArrayList<>(n.gpus());
    for (int i = 0; i < n.gpus(); i++) {
      gpus.add(Gpu.whole(n.name() + "-gpu" + i, i, n.model(), GPU_MEMORY_MIB));
    }
    return new GpuNode(n.name(), gpus, n.cpuMilli(), n.memoryMib());
  }

  static PodDemand demand(Arrival a) {
    TracePod p = a.pod();
    GpuDemand d =
        p.gpuMilli() < 1000
            ? GpuDemand.share("main", p.gpuMilli(), 0)
            : GpuDemand.whole("main", p.numGpu(), 0);
    String name = a.name();
    return new PodDemand(
        "openb/" + name,
        name,
        List.of(d),
        p.models(),
        Set.of(),
        Set.of(),
        p.cpuMilli(),
        p.memoryMib());
  }
}
