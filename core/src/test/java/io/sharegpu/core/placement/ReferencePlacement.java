package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A plain placement written from the contract, for differential tests of {@link Placement}: no
 * caches, no node-state classes, no scratch arrays; every node is evaluated from scratch with the
 * fit rules written out once.
 *
 * <p>Rules: a GPU is usable by the pod when healthy, not cordoned, not split into MIG instances, of
 * an allowed model (the lower-case product name contains one of the pod's models), pinned when the
 * pod pins and not excluded. A share fits a usable GPU that nobody holds whole and no container of
 * this pod took whole, with free compute and memory for it (memory as asked, else the share's part
 * of the GPU's memory rounded down, at least 1 MiB). k whole GPUs need k usable GPUs that are not
 * MIG instances, that nobody (this pod included) uses, with at least the asked memory divided by k
 * (rounded up) each; a whole GPU takes its whole memory. Containers go whole GPUs first, then
 * shares largest first (ties in pod order); each to the GPU the policy scores highest (earliest GPU
 * on a tie within rounding). Host CPU and memory are checked first when both node and pod track
 * them.
 */
final class ReferencePlacement {

  /** Why a pod does not fit a node. */
  enum Kind {
    UNKNOWN_NODE,
    HOST_CPU,
    HOST_MEMORY,
    NO_GPUS,
    NO_USABLE_GPU,
    SHARE,
    WHOLE
  }

  /**
   * A rejection: its kind, the failing container ({@code null} for node-level kinds or pods of one
   * container) and, for whole GPUs, how many idle GPUs were found.
   */
  record Reject(Kind kind, @Nullable String container, int found) {}

  /** The outcome on one node: grants and score, or a rejection. */
  record Outcome(@Nullable List<ContainerGrant> grants, double score, @Nullable Reject reject) {
    boolean fits() {
      return reject == null;
    }
  }

  private final Ledger ledger;
  private final PlacementPolicy policy;

  ReferencePlacement(Ledger ledger, PlacementPolicy policy) {
    this.ledger = ledger;
    this.policy = policy;
  }

  /** Feasible nodes in the order asked and the rejections by node; each name answered once. */
  record Filtered(List<String> feasible, Map<String, Reject> rejected) {}

  Filtered filter(PodDemand pod, Collection<String> names) {
    List<String> feasible = new ArrayList<>();
    Map<String, Reject> rejected = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      if (!seen.add(name)) {
        continue;
      }
      Outcome o = evaluate(pod, name);
      if (o.fits()) {
        feasible.add(name);
      } else {
        rejected.put(name, o.reject());
      }
    }
    return new Filtered(feasible, rejected);
  }

  /** Scores 0..10 by node, in the order asked, each name once. */
  Map<String, Integer> prioritize(PodDemand pod, Collection<String> names) {
    Map<String, Double> raw = new LinkedHashMap<>();
    for (String name : names) {
      if (raw.containsKey(name)) {
        continue;
      }
      Outcome o = evaluate(pod, name);
      raw.put(name, o.fits() ? finite(o.score()) : Double.NaN);
    }
    double max = Double.NEGATIVE_INFINITY;
    double min = Double.POSITIVE_INFINITY;
    for (double s : raw.values()) {
      if (!Double.isNaN(s)) {
        max = Math.max(max, s);
        min = Math.min(min, s);
      }
    }
    double range = max - min;
    Map<String, Integer> out = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : raw.entrySet()) {
      double s = e.getValue();
      int v;
      if (Double.isNaN(s)) {
        v = 0;
      } else if (!beats(max, s)) {
        v = 10;
      } else if (range > 0 && Double.isFinite(range)) {
        v = Math.min(9, Math.max(1, 1 + (int) Math.floor(8 * (s - min) / range)));
      } else {
        v = 1;
      }
      out.put(e.getKey(), v);
    }
    return out;
  }

  Optional<Allocation> choose(PodDemand pod, String node) {
    Outcome o = evaluate(pod, node);
    return o.fits() ? Optional.of(allocation(pod, node, o)) : Optional.empty();
  }

  Optional<Allocation> place(PodDemand pod) {
    String bestNode = null;
    Outcome best = null;
    for (String name : ledger.nodeNames()) {
      Outcome o = evaluate(pod, name);
      if (o.fits() && (best == null || beats(finite(o.score()), finite(best.score())))) {
        best = o;
        bestNode = name;
      }
    }
    return best == null ? Optional.empty() : Optional.of(allocation(pod, bestNode, best));
  }

  private static Allocation allocation(PodDemand pod, String node, Outcome o) {
    return new Allocation(pod.podKey(), pod.podUid(), node, o.grants(), AllocationState.RESERVED);
  }

  Outcome evaluate(PodDemand pod, String name) {
    if (policy instanceof SupplyAware s) {
      s.supply(supply());
      long[] free = freeOnHostNodes();
      if (free != null) {
        s.freeOnHostNodes(free[0], free[1]);
      }
    }
    NodeUsage u = ledger.nodeUsage(name);
    if (u == null) {
      return reject(Kind.UNKNOWN_NODE, null, 0);
    }
    GpuNode node = u.node();
    if (node.cpuMilli() > 0 && pod.cpuMilli() > 0 && pod.cpuMilli() > u.freeCpuMilli()) {
      return reject(Kind.HOST_CPU, null, 0);
    }
    if (node.memoryMib() > 0 && pod.memoryMib() > 0 && pod.memoryMib() > u.freeHostMemoryMib()) {
      return reject(Kind.HOST_MEMORY, null, 0);
    }
    int n = u.size();
    int[] addMilli = new int[n];
    long[] addMem = new long[n];
    boolean[] takenWhole = new boolean[n];
    Map<Integer, List<GpuGrant>> chosen = new HashMap<>();
    NodeView view = view(u);
    for (int c : placementOrder(pod)) {
      GpuDemand d = pod.containers().get(c);
      String label = pod.containers().size() > 1 ? d.container() : null;
      if (d.isShare()) {
        int best = -1;
        double bestScore = 0;
        long bestMem = 0;
        for (int i = 0; i < n; i++) {
          if (!usable(pod, u, i) || u.isExclusive(i) || takenWhole[i]) {
            continue;
          }
          long mem = d.memoryMib() > 0 ? d.memoryMib() : shareOfMemory(d, u, i);
          if (u.usedMilli(i) + addMilli[i] + d.computeMilli() > u.computeMilli(i)
              || u.usedMemoryMib(i) + addMem[i] + mem > u.memoryMib(i)) {
            continue;
          }
          double s;
          if (policy instanceof GpuPreference p) {
            s =
                p.gpuScore(
                    u.gpu(i),
                    u.usedMilli(i) + addMilli[i],
                    u.usedMemoryMib(i) + addMem[i],
                    d.computeMilli(),
                    mem);
          } else {
            Map<Integer, List<GpuGrant>> trial = new HashMap<>(chosen);
            trial.put(c, List.of(new GpuGrant(u.gpu(i).uuid(), d.computeMilli(), mem)));
            s = policy.score(view, pod, grants(pod, trial));
          }
          if (best < 0 || beats(s, bestScore)) {
            best = i;
            bestScore = s;
            bestMem = mem;
          }
        }
        if (best < 0) {
          return reject(anyUsable(pod, u, d) ? Kind.SHARE : noGpuKind(u), label, 0);
        }
        chosen.put(c, List.of(new GpuGrant(u.gpu(best).uuid(), d.computeMilli(), bestMem)));
        addMilli[best] += d.computeMilli();
        addMem[best] += bestMem;
      } else {
        int k = d.wholeGpus();
        long perGpu = (d.memoryMib() + k - 1) / k;
        List<GpuGrant> picked = new ArrayList<>();
        for (int j = 0; j < k; j++) {
          int best = -1;
          double bestScore = 0;
          for (int i = 0; i < n; i++) {
            if (!usable(pod, u, i)
                || u.gpu(i).isMig()
                || u.holderCount(i) > 0
                || addMilli[i] > 0
                || takenWhole[i]
                || u.memoryMib(i) < perGpu) {
              continue;
            }
            double s;
            if (policy instanceof GpuPreference p) {
              s = p.gpuScore(u.gpu(i), 0, 0, 1000, u.gpu(i).memoryMib());
            } else {
              List<GpuGrant> trialPicked = new ArrayList<>(picked);
              trialPicked.add(new GpuGrant(u.gpu(i).uuid(), 1000, u.gpu(i).memoryMib()));
              Map<Integer, List<GpuGrant>> trial = new HashMap<>(chosen);
              trial.put(c, trialPicked);
              s = policy.score(view, pod, grants(pod, trial));
            }
            if (best < 0 || beats(s, bestScore)) {
              best = i;
              bestScore = s;
            }
          }
          if (best < 0) {
            return reject(anyUsable(pod, u, d) ? Kind.WHOLE : noGpuKind(u), label, j);
          }
          picked.add(new GpuGrant(u.gpu(best).uuid(), 1000, u.gpu(best).memoryMib()));
          takenWhole[best] = true;
          addMilli[best] += 1000;
          addMem[best] += u.gpu(best).memoryMib();
        }
        chosen.put(c, List.copyOf(picked));
      }
    }
    List<ContainerGrant> grants = grants(pod, chosen);
    return new Outcome(grants, policy.score(view, pod, grants), null);
  }

  private static Kind noGpuKind(NodeUsage u) {
    return u.size() == 0 ? Kind.NO_GPUS : Kind.NO_USABLE_GPU;
  }

  /** True when some GPU passes the pod's GPU rules for this container, however busy. */
  private static boolean anyUsable(PodDemand pod, NodeUsage u, GpuDemand d) {
    for (int i = 0; i < u.size(); i++) {
      if (usable(pod, u, i) && (d.isShare() || !u.gpu(i).isMig())) {
        return true;
      }
    }
    return false;
  }

  private static boolean usable(PodDemand pod, NodeUsage u, int i) {
    String uuid = u.gpu(i).uuid();
    if (!u.isHealthy(i) || u.isCordoned(i) || u.isMigParent(i)) {
      return false;
    }
    if (!pod.pinnedUuids().isEmpty() && !pod.pinnedUuids().contains(uuid)) {
      return false;
    }
    if (pod.excludedUuids().contains(uuid)) {
      return false;
    }
    if (pod.models().isEmpty()) {
      return true;
    }
    String model = u.gpu(i).model().toLowerCase(java.util.Locale.ROOT);
    return pod.models().stream().anyMatch(model::contains);
  }

  private static long shareOfMemory(GpuDemand d, NodeUsage u, int i) {
    return Math.max(1, (long) d.computeMilli() * u.memoryMib(i) / u.computeMilli(i));
  }

  /** Whole GPUs and larger shares first; equal compute keeps the pod's order. */
  private static List<Integer> placementOrder(PodDemand pod) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < pod.containers().size(); i++) {
      order.add(i);
    }
    order.sort(
        Comparator.comparingInt((Integer i) -> pod.containers().get(i).computeMilli()).reversed());
    return order;
  }

  private static List<ContainerGrant> grants(PodDemand pod, Map<Integer, List<GpuGrant>> chosen) {
    List<ContainerGrant> out = new ArrayList<>();
    for (int c = 0; c < pod.containers().size(); c++) {
      List<GpuGrant> g = chosen.get(c);
      if (g == null) {
        continue;
      }
      GpuDemand d = pod.containers().get(c);
      int limit = d.isShare() ? Math.max(d.limitMilli(), d.computeMilli()) : 1000;
      out.add(new ContainerGrant(d.container(), g, limit));
    }
    return out;
  }

  private static NodeView view(NodeUsage u) {
    GpuNode node = u.node();
    return new NodeView(
        node,
        u.usage(),
        node.cpuMilli() == 0 ? 0 : u.freeCpuMilli(),
        node.memoryMib() == 0 ? 0 : u.freeHostMemoryMib());
  }

  /** Free host CPU and GPU compute on the nodes that report host CPU; null when none does. */
  private long @Nullable [] freeOnHostNodes() {
    boolean any = false;
    long cpu = 0;
    long gpu = 0;
    for (String name : ledger.nodeNames()) {
      NodeUsage u = ledger.nodeUsage(name);
      if (u == null || u.node().cpuMilli() <= 0) {
        continue;
      }
      any = true;
      cpu += u.freeCpuMilli();
      for (int i = 0; i < u.size(); i++) {
        if (u.isHealthy(i) && !u.isCordoned(i) && !u.isMigParent(i)) {
          gpu += u.freeMilli(i);
        }
      }
    }
    return any ? new long[] {cpu, gpu} : null;
  }

  private Map<String, Long> supply() {
    Map<String, Long> out = new HashMap<>();
    for (String name : ledger.nodeNames()) {
      NodeUsage u = ledger.nodeUsage(name);
      for (int i = 0; u != null && i < u.size(); i++) {
        if (u.isHealthy(i) && !u.isCordoned(i) && !u.isMigParent(i)) {
          out.merge(u.gpu(i).model(), (long) u.computeMilli(i), Long::sum);
        }
      }
    }
    return out;
  }

  private static Outcome reject(Kind kind, @Nullable String container, int found) {
    return new Outcome(null, Double.NaN, new Reject(kind, container, found));
  }

  private static double finite(double s) {
    return Double.isNaN(s) ? Double.NEGATIVE_INFINITY : s;
  }

  /**
   * True when {@code s} beats {@code best} by more than rounding (relative 1e-12): scores that
   * differ in the last bits are ties, and ties keep the earlier candidate.
   */
  static boolean beats(double s, double best) {
    if (Double.isNaN(s)) {
      return false;
    }
    if (Double.isNaN(best) || best == Double.NEGATIVE_INFINITY) {
      return s > best || Double.isNaN(best);
    }
    return s - best > 1e-12 * Math.max(1, Math.abs(best));
  }
}
