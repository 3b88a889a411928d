package io.sharegpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.placement.SupplyAware;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The cached, incremental fragment arithmetic of {@code sharegpu} and {@code fgd} decides exactly
 * as the straightforward one: random pods on random small clusters (mixed models, tracked and
 * untracked CPU, releases and health changes in between), compared call by call.
 */
class FastFragmentEquivalenceTest {

  @Test
  void sharegpuPlacesExactlyAsTheStraightforwardComputation() {
    for (long seed = 1; seed <= 6; seed++) {
      replay(seed, new ShareGpuPolicy(), new ReferenceShareGpu(), 32_000);
    }
  }

  /** Nodes with little host CPU: the workload turns CPU-bound and pods without GPUs count. */
  @Test
  void sharegpuPlacesExactlyAsTheStraightforwardComputationWhenTheWorkloadIsCpuBound() {
    for (long seed = 1; seed <= 6; seed++) {
      int bound = replay(seed, new ShareGpuPolicy(), new ReferenceShareGpu(), 12_000);
      assertThat(bound).as("seed %d: pods placed while CPU runs out first", seed).isGreaterThan(50);
    }
  }

  @Test
  void fgdPlacesExactlyAsTheStraightforwardComputation() {
    for (long seed = 1; seed <= 4; seed++) {
      replay(seed, new FgdPolicy(seed, true), new ReferenceFgd(seed, true), 32_000);
      replay(seed, new FgdPolicy(seed, false), new ReferenceFgd(seed, false), 32_000);
    }
  }

  @Test
  void primedFgdPlacesExactlyAsTheStraightforwardComputation() {
    SplittableRandom r = new SplittableRandom(7);
    List<PodShape> shapes = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      shapes.add(PodShape.of(pod(r, "prime-" + i)));
    }
    FgdPolicy fast = new FgdPolicy(7, false);
    ReferenceFgd reference = new ReferenceFgd(7, false);
    fast.prime(shapes);
    reference.prime(shapes);
    replay(7, fast, reference, 32_000);
  }

  @Test
  void sharegpuScoresAlikeNodesOnceWithTheSameDecisions() {
    for (long seed = 1; seed <= 6; seed++) {
      alikeNodes(seed);
    }
  }

  /**
   * Many nodes in the same few states, their GPUs in shuffled order: {@code sharegpu} (which
   * promises {@link io.sharegpu.core.placement.StateScored}) must filter, prioritize, choose and
   * place exactly as the same policy evaluated node by node, rejection words included.
   */
  private static void alikeNodes(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    Ledger ledger = new Ledger();
    List<String> names = new ArrayList<>();
    List<GpuNode> nodes = new ArrayList<>();
    int[] preset = {0, 0, 1000, 500, 250, 750, 1000, 0};
    for (int n = 0; n < 60; n++) {
      String name = "n" + n;
      int gpus = 2 + r.nextInt(3);
      List<Gpu> list = new ArrayList<>();
      for (int g = 0; g < gpus; g++) {
        String model = g == 0 && n % 3 == 0 ? "NVIDIA A100-SXM4-40GB" : "NVIDIA H100 80GB HBM3";
        list.add(Gpu.whole(name + "-g" + g, g, model, 1000));
      }
      // shuffle the indexes so that alike nodes list their GPUs in other orders
      List<Gpu> shuffled = new ArrayList<>();
      List<Integer> idx = new ArrayList<>();
      for (int g = 0; g < gpus; g++) {
        idx.add(g);
      }
      for (int g = 0; g < gpus; g++) {
        int j = idx.remove(r.nextInt(idx.size()));
        Gpu x = list.get(g);
        shuffled.add(Gpu.whole(x.uuid(), j, x.model(), 1000));
      }
      GpuNode node = new GpuNode(name, shuffled, n % 4 == 0 ? 0 : 16_000, 0);
      ledger.putNode(node);
      names.add(name);
      nodes.add(node);
      for (Gpu x : shuffled) {
        int milli = preset[r.nextInt(preset.length)];
        if (milli > 0) {
          String uid = name + "-fill-" + x.index();
          ledger.commit(
              new Allocation(
                  "ns/" + uid,
                  uid,
                  name,
                  List.of(
                      new ContainerGrant(
                          "main",
                          List.of(new io.sharegpu.core.ledger.GpuGrant(x.uuid(), milli, milli)),
                          milli)),
                  io.sharegpu.core.ledger.AllocationState.BOUND),
              0,
              0);
        }
      }
    }
    ShareGpuPolicy fast = new ShareGpuPolicy();
    ShareGpuPolicy inner = new ShareGpuPolicy();
    PlacementPolicy reference = new NodeByNode(inner);
    Placement fastPlacement = new Placement(ledger, fast);
    Placement referencePlacement = new Placement(ledger, reference);
    List<String> placed = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      PodDemand pod = pod(r, "p" + i);
      if (r.nextInt(10) == 0) {
        GpuNode node = nodes.get(r.nextInt(nodes.size()));
        String uuid = node.gpus().get(r.nextInt(node.gpus().size())).uuid();
        pod =
            r.nextBoolean()
                ? new PodDemand(
                    pod.podKey(),
                    pod.podUid(),
                    pod.containers(),
                    pod.models(),
                    Set.of(uuid),
                    Set.of(),
                    pod.cpuMilli(),
                    0)
                : new PodDemand(
                    pod.podKey(),
                    pod.podUid(),
                    pod.containers(),
                    pod.models(),
                    Set.of(),
                    Set.of(uuid),
                    pod.cpuMilli(),
                    0);
      }
      fast.observe(pod);
      reference.observe(pod);
      FilterResult ff = fastPlacement.filter(pod, names);
      FilterResult rf = referencePlacement.filter(pod, names);
      assertThat(ff).as("seed %d pod %d", seed, i).isEqualTo(rf);
      assertThat(fastPlacement.prioritize(pod, ff.feasible()))
          .as("seed %d pod %d", seed, i)
          .isEqualTo(referencePlacement.prioritize(pod, rf.feasible()));
      // the same names in other objects and order, as an HTTP request brings them
      List<String> copies = new ArrayList<>();
      for (String name : names) {
        copies.add(0, new String(name.toCharArray()));
      }
      assertThat(fastPlacement.prioritize(pod, copies))
          .isEqualTo(referencePlacement.prioritize(pod, copies));
      for (String name : ff.feasible()) {
        assertThat(fastPlacement.choose(pod, name)).isEqualTo(referencePlacement.choose(pod, name));
      }
      Optional<Allocation> a = fastPlacement.place(pod);
      assertThat(a).as("seed %d pod %d", seed, i).isEqualTo(referencePlacement.place(pod));
      if (a.isPresent()) {
        ledger.commit(a.get(), pod.cpuMilli(), 0);
        placed.add(pod.podUid());
      }
      if (!placed.isEmpty() && r.nextInt(3) == 0) {
        ledger.release(placed.remove(r.nextInt(placed.size())));
      }
    }
  }

  /** Delegates to a policy without promising {@code StateScored}: every node is evaluated. */
  private record NodeByNode(ShareGpuPolicy inner)
      implements PlacementPolicy, GpuPreference, SupplyAware {
    @Override
    public String name() {
      return "node-by-node";
    }

    @Override
    public void supply(Map<String, Long> computeMilliByModel) {
      inner.supply(computeMilliByModel);
    }

    @Override
    public void freeOnHostNodes(long freeCpuMilli, long freeGpuMilli) {
      inner.freeOnHostNodes(freeCpuMilli, freeGpuMilli);
    }

    @Override
    public void observe(PodDemand pod) {
      inner.observe(pod);
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      return inner.score(view, pod, grant);
    }

    @Override
    public double gpuScore(
        Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
      return inner.gpuScore(gpu, usedMilli, usedMemoryMib, addMilli, addMemoryMib);
    }
  }

  /** Returns the number of pods placed while {@code sharegpu}'s CPU ran out first. */
  private static int replay(
      long seed, PlacementPolicy fast, PlacementPolicy reference, long nodeCpuMilli) {
    int bound = 0;
    SplittableRandom r = new SplittableRandom(seed);
    Ledger ledger = new Ledger();
    List<String> names = new ArrayList<>();
    List<GpuNode> nodes = new ArrayList<>();
    for (int n = 0; n < 24; n++) {
      String name = "n" + n;
      int gpus = 1 + r.nextInt(8);
      String model = r.nextInt(3) == 0 ? "NVIDIA A100-SXM4-40GB" : "NVIDIA H100 80GB HBM3";
      List<Gpu> list = new ArrayList<>();
      for (int g = 0; g < gpus; g++) {
        list.add(Gpu.whole(name + "-g" + g, g, model, 1000));
      }
      GpuNode node = new GpuNode(name, list, r.nextInt(4) == 0 ? 0 : nodeCpuMilli, 0);
      ledger.putNode(node);
      names.add(name);
      nodes.add(node);
    }
    Placement fastPlacement = new Placement(ledger, fast);
    Placement referencePlacement = new Placement(ledger, reference);
    List<String> placed = new ArrayList<>();
    int fits = 0;
    for (int i = 0; i < 400; i++) {
      PodDemand pod = pod(r, "p" + i);
      if (fast instanceof ShareGpuPolicy f
          && reference instanceof ReferenceShareGpu g
          && r.nextInt(3) == 0) {
        PodShape cpuOnly = new PodShape(1000L * (2 + r.nextInt(7)), 0, 0, Set.of());
        f.observe(cpuOnly);
        g.observe(cpuOnly);
      }
      fast.observe(pod);
      reference.observe(pod);
      FilterResult ff = fastPlacement.filter(pod, names);
      FilterResult rf = referencePlacement.filter(pod, names);
      assertThat(ff.feasible()).isEqualTo(rf.feasible());
      Map<String, Integer> fp = fastPlacement.prioritize(pod, ff.feasible());
      Map<String, Integer> rp = referencePlacement.prioritize(pod, rf.feasible());
      assertThat(fp).as("seed %d pod %d", seed, i).isEqualTo(rp);
      for (String name : ff.feasible()) {
        assertThat(fastPlacement.choose(pod, name)).isEqualTo(referencePlacement.choose(pod, name));
      }
      if (fast instanceof HostOnlyScore fh && reference instanceof HostOnlyScore rh) {
        String name = names.get(r.nextInt(names.size()));
        NodeView view = view(ledger, name);
        assertThat(fh.scoreHostOnly(view, 500, 0)).isEqualTo(rh.scoreHostOnly(view, 500, 0));
      }
      Optional<Allocation> a = fastPlacement.place(pod);
      assertThat(a).as("seed %d pod %d", seed, i).isEqualTo(referencePlacement.place(pod));
      if (fast instanceof ShareGpuPolicy f && f.cpuBound()) {
        bound++;
      }
      if (fast instanceof ShareGpuPolicy f && f.cpuBound()) {
        bound++;
      }
      if (a.isPresent()) {
        fits++;
        ledger.commit(a.get(), pod.cpuMilli(), 0);
        placed.add(pod.podUid());
      }
      if (!placed.isEmpty() && r.nextInt(4) == 0) {
        ledger.release(placed.remove(r.nextInt(placed.size())));
      }
      if (r.nextInt(50) == 0) {
        GpuNode node = nodes.get(r.nextInt(nodes.size()));
        List<Gpu> gpus = new ArrayList<>(node.gpus());
        int g = r.nextInt(gpus.size());
        Gpu old = gpus.get(g);
        gpus.set(
            g,
            new Gpu(
                old.uuid(),
                old.index(),
                old.model(),
                old.memoryMib(),
                old.computeMilli(),
                !old.healthy(),
                old.parentUuid(),
                old.migProfile()));
        ledger.putNode(new GpuNode(node.name(), gpus, node.cpuMilli(), node.memoryMib()));
      }
    }
    assertThat(fits).as("the replay places pods").isGreaterThan(100);
    return bound;
  }

  private static NodeView view(Ledger ledger, String name) {
    var u = ledger.nodeUsage(name);
    long cpu = u.node().cpuMilli() == 0 ? 0 : u.freeCpuMilli();
    return new NodeView(u.node(), u.usage(), cpu, 0);
  }

  private static PodDemand pod(SplittableRandom r, String name) {
    List<GpuDemand> containers = new ArrayList<>();
    int kind = r.nextInt(10);
    if (kind < 6) {
      containers.add(GpuDemand.share("main", 50 * (1 + r.nextInt(19)), 0));
    } else if (kind < 9) {
      containers.add(GpuDemand.whole("main", 1 + r.nextInt(4), 0));
    } else {
      containers.add(GpuDemand.share("a", 100 * (1 + r.nextInt(5)), 0));
      containers.add(GpuDemand.share("b", 100 * (1 + r.nextInt(5)), 0));
    }
    Set<String> models = r.nextInt(6) == 0 ? Set.of("a100") : Set.of();
    long cpu = 1000L * r.nextInt(9);
    return new PodDemand("ns/" + name, name, containers, models, Set.of(), Set.of(), cpu, 0);
  }

  /**
   * {@code sharegpu} computed the plain way: every fragment from scratch on every call, and the
   * stranded GPU from the node's plain numbers.
   */
  static final class ReferenceShareGpu
      implements PlacementPolicy, GpuPreference, HostOnlyScore, SupplyAware {
    private final Workload workload = new Workload();
    private final Map<Set<String>, Double> restricted = new java.util.LinkedHashMap<>();
    private Map<String, Long> supply = Map.of();

    @Override
    public String name() {
      return "sharegpu-reference";
    }

    private double gpuSeen;
    private double cpuSeen;
    private double memorySeen;
    private double allCpuSeen;
    private long freeCpu;
    private long freeGpu;

    @Override
    public void freeOnHostNodes(long freeCpuMilli, long freeGpuMilli) {
      freeCpu = freeCpuMilli;
      freeGpu = freeGpuMilli;
    }

    /** The observed CPU per observed GPU, all pods counted once the CPU runs out first. */
    private double strandCpu() {
      boolean bound = freeGpu > 0 && allCpuSeen / gpuSeen * freeGpu >= freeCpu;
      return bound ? allCpuSeen : cpuSeen;
    }

    /** A pod without GPUs, as the simulator reports them. */
    void observe(PodShape shape) {
      allCpuSeen += shape.cpuMilli();
      workload.add(shape, 1);
    }

    @Override
    public void observe(PodDemand pod) {
      PodShape shape = PodShape.of(pod);
      allCpuSeen += pod.cpuMilli();
      if (shape.totalGpuMilli() > 0) {
        gpuSeen += shape.totalGpuMilli();
        cpuSeen += pod.cpuMilli();
        memorySeen += pod.memoryMib();
        if (!shape.models().isEmpty()) {
          restricted.merge(shape.models(), (double) shape.totalGpuMilli(), Double::sum);
        }
      }
      workload.add(shape, 1);
    }

    @Override
    public void supply(Map<String, Long> computeMilliByModel) {
      supply = Map.copyOf(computeMilliByModel);
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      double s = score(view, NodeState.after(view, pod, grant), pod.memoryMib());
      if (pod.models().isEmpty() && workload.total() > 0) {
        double charge = 0;
        for (ContainerGrant c : grant) {
          for (io.sharegpu.core.ledger.GpuGrant g : c.gpus()) {
            String model = view.gpus().get(NodeState.position(view, g.uuid())).gpu().model();
            charge += g.computeMilli() * pressure(model);
          }
        }
        s -= ShareGpuPolicy.DEFAULT_RESERVE_WEIGHT * charge;
      }
      return s;
    }

    /** The restricted sets' demand share over the share of the cluster they may use, summed. */
    private double pressure(String model) {
      if (!supply.containsKey(model)) {
        return 0;
      }
      long total = 0;
      for (long v : supply.values()) {
        total += v;
      }
      double p = 0;
      boolean asked = false;
      for (Map.Entry<Set<String>, Double> e : restricted.entrySet()) {
        PodShape set = new PodShape(0, 1000, 1, e.getKey());
        if (!set.allows(model)) {
          continue;
        }
        asked = true;
        long usable = 0;
        for (Map.Entry<String, Long> s : supply.entrySet()) {
          if (set.allows(s.getKey())) {
            usable += s.getValue();
          }
        }
        p += (e.getValue() / gpuSeen) / ((double) usable / total);
      }
      if (!asked) {
        // a model nobody asked for yet: as much as the asked models on average, at least one GPU
        double restrictedTotal = 0;
        for (double d : restricted.values()) {
          restrictedTotal += d;
        }
        int askedModels = 0;
        for (String other : supply.keySet()) {
          if (restricted.keySet().stream()
              .anyMatch(set -> new PodShape(0, 1000, 1, set).allows(other))) {
            askedModels++;
          }
        }
        double assumed = Math.max(1000, askedModels == 0 ? 0 : restrictedTotal / askedModels);
        p = assumed / gpuSeen / (supply.get(model) / (double) total);
      }
      return p;
    }

    @Override
    public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
      return score(view, NodeState.after(view, List.of(), cpuMilli), memoryMib);
    }

    private double score(NodeView view, NodeState after, long memoryMib) {
      double tie = -after.totalFree() * 1e-6 - (after.cpuTracked ? after.freeCpu * 1e-12 : 0);
      if (workload.total() == 0) {
        return tie * 1e6;
      }
      NodeState before = NodeState.of(view);
      double growth = after.fragment(workload) - before.fragment(workload);
      boolean cpu = view.node().cpuMilli() > 0 && cpuSeen > 0;
      boolean memory = view.node().memoryMib() > 0 && memorySeen > 0;
      if (cpu || memory) {
        long memoryAfter = Math.max(0, view.freeMemoryMib() - memoryMib);
        double sb =
            stranded(before.totalFree(), view.freeCpuMilli(), cpu, view.freeMemoryMib(), memory);
        double sa = stranded(after.totalFree(), after.freeCpu, cpu, memoryAfter, memory);
        growth += ShareGpuPolicy.DEFAULT_STRAND_WEIGHT * (sa - sb);
      }
      return -growth + tie;
    }

    private double stranded(int gpu, long cpu, boolean cpuOn, long memory, boolean memoryOn) {
      double s = 0;
      if (cpuOn) {
        s = Math.max(s, gpu - cpu * gpuSeen / strandCpu());
      }
      if (memoryOn) {
        s = Math.max(s, gpu - memory * gpuSeen / memorySeen);
      }
      return s;
    }

    @Override
    public double gpuScore(
        Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
      double bestFit = -(gpu.computeMilli() - usedMilli) * 1e-6;
      if (workload.total() == 0) {
        return bestFit;
      }
      return -FgdPolicy.gpuFragmentGrowth(workload, gpu, usedMilli, addMilli) + bestFit;
    }
  }

  /** {@code fgd} computed the plain way. */
  static final class ReferenceFgd implements PlacementPolicy, GpuPreference, HostOnlyScore {
    private final KubeScores scores;
    private final boolean quantized;
    private Workload workload = new Workload();
    private boolean primed;

    ReferenceFgd(long seed, boolean quantized) {
      this.scores = new KubeScores(seed);
      this.quantized = quantized;
    }

    void prime(List<PodShape> pods) {
      workload = Workload.fit(pods, FgdPolicy.COVERAGE);
      primed = true;
    }

    @Override
    public String name() {
      return "fgd-reference";
    }

    @Override
    public void observe(PodDemand pod) {
      if (!primed) {
        workload.add(PodShape.of(pod), 1);
      }
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      double b = NodeState.of(view).fragment(workload);
      double a = NodeState.after(view, pod, grant).fragment(workload);
      return nodeScore(b - a);
    }

    @Override
    public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
      double b = NodeState.of(view).fragment(workload);
      double a = NodeState.after(view, List.of(), cpuMilli).fragment(workload);
      return nodeScore(b - a);
    }

    private double nodeScore(double decrease) {
      if (!quantized) {
        return decrease + 1e-6 * scores.next();
      }
      return scores.node((long) (100 * KubeScores.sigmoid(decrease / 1000)));
    }

    @Override
    public double gpuScore(
        Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
      return -FgdPolicy.gpuFragmentGrowth(workload, gpu, usedMilli, addMilli);
    }
  }
}
