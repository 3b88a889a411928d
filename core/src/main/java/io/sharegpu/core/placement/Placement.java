package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Decides where a pod fits and where it goes, on top of a {@link Ledger} and a {@link
 * PlacementPolicy}. Nothing here changes the ledger: callers commit what {@link #choose} or {@link
 * #place} return.
 *
 * <p>Fit rules: a share fits a GPU that is healthy, not cordoned, not held whole, allowed by the
 * pod's models, pins and excludes, with free compute at least the share and free memory at least
 * the share's memory (by default the share's part of the GPU's memory, rounded down). k whole GPUs
 * need k such GPUs that nothing holds; a whole-GPU request never uses a MIG instance, and nothing
 * uses a GPU whose MIG instances are listed (only the instances). All containers of a pod go to one
 * node; whole-GPU containers are placed first, then shares from largest to smallest, each on the
 * GPU the policy prefers; shares of one pod may share a GPU when it fits.
 *
 * <p>{@link #filter} remembers its work for the same pod and ledger version, so that {@link
 * #prioritize} and {@link #choose} that follow do not repeat it. With a {@link StateScored} policy
 * and a pod of one container without pins or excludes, {@link #filter}, {@link #prioritize} and
 * {@link #place} evaluate one node per {@linkplain NodeUsage#stateClass node state} and reuse the
 * answer for the other nodes in that state (decisions are the same). Not thread-safe.
 */
public final class Placement {
  private static final int UNHEALTHY = 1;
  private static final int MIG_PARENT = 2;
  private static final int MODEL = 4;
  private static final int NOT_PINNED = 8;
  private static final int EXCLUDED = 16;
  private static final int MIG_INSTANCE = 32;
  private static final int CORDONED = 64;

  /** At most this many cordoned GPUs are named in one reason line. */
  private static final int CORDONS_NAMED = 3;

  private static final int FAIL_HOST_CPU = 1;
  private static final int FAIL_HOST_MEMORY = 2;
  private static final int FAIL_SHARE = 3;
  private static final int FAIL_WHOLE = 4;

  private static final Outcome NO_FIT = new Outcome(List.of(), Double.NaN);

  private final Ledger ledger;
  private final PlacementPolicy policy;
  private final @Nullable GpuPreference preference;
  private final boolean stateScored;
  private final @Nullable SupplyAware supplyAware;
  private long supplyVersion = -1;

  private @Nullable PodDemand cachedPod;
  private long cachedVersion = -1;
  private final Map<String, Outcome> cache = new HashMap<>();
  private final Map<Long, String> reasons = new HashMap<>();
  private int stamp;
  private ClassEntry[] byClass = new ClassEntry[64];
  private final Failure classFailure = new Failure();
  private boolean trackOrder;
  private boolean orderFree;
  private double[] scratchScore = new double[8];
  private String[] lastFeasible = new String[0];
  private double[] lastScore = new double[0];
  private int lastFeasibleCount;
  private int lastFeasibleStamp = -1;
  private int[] scratchMilli = new int[8];
  private long[] scratchMem = new long[8];
  private int[] scratchTaken = new int[8];
  private int[] seenAt = new int[64];
  private int seenStamp;

  /** Places on {@code ledger} (read, never changed) with {@code policy}. */
  public Placement(Ledger ledger, PlacementPolicy policy) {
    this.ledger = ledger;
    this.policy = policy;
    this.preference = policy instanceof GpuPreference p ? p : null;
    this.stateScored = policy instanceof StateScored;
    this.supplyAware = policy instanceof SupplyAware s ? s : null;
  }

  /** Returns the policy. */
  public PlacementPolicy policy() {
    return policy;
  }

  /**
   * Splits {@code nodeNames} into the nodes the pod fits and the others, with a one-line reason
   * each (names not in the ledger are rejected: no GPUNode).
   */
  public FilterResult filter(PodDemand pod, Collection<String> nodeNames) {
    Plan plan = plan(pod);
    int n = nodeNames.size();
    String[] feasible = new String[n];
    Rejection[] rejected = new Rejection[n];
    int r = 0;
    Failure failure = new Failure();
    if (lastFeasible.length < n) {
      lastFeasible = new String[n];
      lastScore = new double[n];
    }
    lastFeasibleStamp = -1;
    int seen = nextSeenStamp();
    @Nullable Set<String> unknown = null;
    int k = 0;
    for (String name : nodeNames) {
      int slot = ledger.nodeSlot(name);
      if (slot < 0) {
        if (unknown == null) {
          unknown = new HashSet<>();
        }
        if (unknown.add(name)) {
          rejected[r++] = new Rejection(name, noGpuNode(), List.of());
        }
        continue;
      }
      if (!firstSight(slot, seen)) {
        continue;
      }
      failure.reset();
      if (plan.byClass) {
        ClassEntry c = classEntry(plan, name, slot, failure);
        if (c != null) {
          if (c.outcome == NO_FIT) {
            NodeUsage cu = ledger.nodeUsage(slot);
            if (cu.hasCordon()) {
              // the words name this node's cordoned GPUs: not shared with the node's state class
              rejected[r++] = new Rejection(name, summary(plan, cu, failure, null), List.of());
              continue;
            }
            if (c.reason == null) {
              c.reason = summary(plan, cu, failure, reasons);
            }
            rejected[r++] = new Rejection(name, c.reason, List.of());
          } else {
            feasible[k] = name;
            lastScore[k++] = sanitize(c.outcome.score);
          }
          continue;
        }
      }
      NodeUsage u = ledger.nodeUsage(slot);
      Outcome o = outcome(plan, name, u, failure);
      if (o == NO_FIT) {
        rejected[r++] = new Rejection(name, summary(plan, u, failure, reasons), List.of());
      } else {
        feasible[k] = name;
        lastScore[k++] = sanitize(o.score);
      }
    }
    System.arraycopy(feasible, 0, lastFeasible, 0, k);
    lastFeasibleCount = k;
    lastFeasibleStamp = stamp;
    return new FilterResult(feasible, k, rejected, r);
  }

  /**
   * Scores the nodes 0..10: the policy's best node gets 10, other nodes the pod fits 1..9 in the
   * policy's order, nodes it does not fit (or unknown) 0. A name asked twice is answered once.
   */
  public NodeScores prioritize(PodDemand pod, Collection<String> nodeNames) {
    Plan plan = plan(pod);
    int n = nodeNames.size();
    double[] scores = new double[n];
    String[] names = new String[n];
    double max = Double.NEGATIVE_INFINITY;
    double min = Double.POSITIVE_INFINITY;
    int k = 0;
    // the feasible names of the last filter, for the same pod and ledger: take its scores
    boolean same = lastFeasibleStamp == stamp && n == lastFeasibleCount;
    int seen = -1;
    @Nullable Set<String> unknown = null;
    for (String name : nodeNames) {
      String last = same ? lastFeasible[k] : null;
      if (last != null && (last == name || last.equals(name))) {
        double s = lastScore[k];
        names[k] = name;
        scores[k++] = s;
        max = Math.max(max, s);
        min = Math.min(min, s);
        continue;
      }
      same = false;
      if (seen < 0) {
        // leaving the fast path: mark the names taken so far, to answer a repeated name once
        seen = nextSeenStamp();
        for (int i = 0; i < k; i++) {
          firstSight(ledger.nodeSlot(names[i]), seen);
        }
      }
      int slot = ledger.nodeSlot(name);
      Outcome o;
      if (slot < 0) {
        if (unknown == null) {
          unknown = new HashSet<>();
        }
        if (!unknown.add(name)) {
          continue;
        }
        o = NO_FIT;
      } else if (!firstSight(slot, seen)) {
        continue;
      } else if (plan.byClass) {
        ClassEntry c = classEntry(plan, name, slot, null);
        o = c != null ? c.outcome : outcome(plan, name, ledger.nodeUsage(slot), null);
      } else {
        o = outcome(plan, name, ledger.nodeUsage(slot), null);
      }
      names[k] = name;
      double s = o == NO_FIT ? Double.NaN : sanitize(o.score);
      scores[k++] = s;
      if (!Double.isNaN(s)) {
        max = Math.max(max, s);
        min = Math.min(min, s);
      }
    }
    byte[] out = new byte[k];
    double range = max - min;
    boolean spread = range > 0 && Double.isFinite(range);
    for (int i = 0; i < k; i++) {
      double s = scores[i];
      int v;
      if (Double.isNaN(s)) {
        v = 0;
      } else if (!better(max, s)) {
        v = 10;
      } else {
        v = spread ? 1 + (int) Math.floor(8 * (s - min) / range) : 1;
        v = Math.min(9, Math.max(1, v));
      }
      out[i] = (byte) v;
    }
    return new NodeScores(names, out, k);
  }

  /** A fresh stamp for {@link #firstSight}. */
  private int nextSeenStamp() {
    if (++seenStamp == Integer.MAX_VALUE) {
      Arrays.fill(seenAt, 0);
      seenStamp = 1;
    }
    return seenStamp;
  }

  /** True the first time {@code slot} is met under {@code seen}; a slot below 0 is never marked. */
  private boolean firstSight(int slot, int seen) {
    if (slot < 0) {
      return true;
    }
    if (slot >= seenAt.length) {
      seenAt = Arrays.copyOf(seenAt, Math.max(slot + 1, seenAt.length * 2));
    }
    if (seenAt[slot] == seen) {
      return false;
    }
    seenAt[slot] = seen;
    return true;
  }

  /**
   * Returns the policy's best allocation of the pod on {@code node} (state {@link
   * AllocationState#RESERVED}, not committed); empty if it does not fit.
   */
  public Optional<Allocation> choose(PodDemand pod, String node) {
    NodeUsage u = ledger.nodeUsage(node);
    if (u == null) {
      return Optional.empty();
    }
    Outcome o = outcome(plan(pod), node, u, null);
    return o == NO_FIT ? Optional.empty() : Optional.of(allocation(pod, node, o));
  }

  /**
   * Returns the policy's best allocation of the pod on {@code usage}, a node's usage that need not
   * be the ledger's own: typically {@link Ledger#usageWithout}, to ask whether the pod would fit
   * were some pods evicted. The same rules and policy as {@link #filter} and {@link
   * #choose(PodDemand, String)}; nothing is cached. Empty if it does not fit.
   */
  public Optional<Allocation> choose(PodDemand pod, NodeUsage usage) {
    Outcome o = evaluate(plan(pod), usage, null);
    return o == NO_FIT ? Optional.empty() : Optional.of(allocation(pod, usage.node().name(), o));
  }

  /**
   * Returns, for each GPU of {@code usage} by position, the GPU memory in MiB that container {@code
   * container} of {@code pod} would take there were the GPU idle, or -1 where the filter never puts
   * that container however idle the GPU is: unhealthy, cordoned, split into MIG instances, a model
   * the pod does not allow, not pinned or excluded, a share larger than the GPU's compute or
   * memory, or for whole GPUs a MIG instance or less memory per GPU than asked. The filter's own
   * per-GPU rules, for callers that reason about which holders to evict (preemption) and about
   * requests no eviction can satisfy.
   *
   * <p>Example: a share of 250m asking no memory, on an idle H100 of 81559 MiB, takes 20389 MiB (a
   * quarter, rounded down); on an A100 when the pod allows only H100: -1. One whole GPU takes the
   * GPU's whole memory.
   */
  public static long[] memoryOnIdleGpus(PodDemand pod, int container, NodeUsage usage) {
    Plan plan = new Plan(pod, false);
    GpuDemand d = pod.containers().get(container);
    int n = usage.size();
    long[] out = new long[n];
    int k = d.wholeGpus();
    long perGpuMem = k == 0 || d.memoryMib() == 0 ? 0 : (d.memoryMib() + k - 1) / k;
    for (int i = 0; i < n; i++) {
      int cap = usage.computeMilli(i);
      long capMem = usage.memoryMib(i);
      long need;
      if (staticFail(plan, usage, i) != 0) {
        need = -1;
      } else if (d.isShare()) {
        need = shareMemory(d, cap, capMem);
        if (d.computeMilli() > cap || need > capMem) {
          need = -1;
        }
      } else {
        need = usage.isMigInstance(i) || capMem < perGpuMem ? -1 : capMem;
      }
      out[i] = need;
    }
    return out;
  }

  /**
   * Returns the policy's best allocation of the pod over all nodes of the ledger (ties go to the
   * node added first); not committed; empty if it fits nowhere.
   */
  public Optional<Allocation> place(PodDemand pod) {
    Plan plan = plan(pod);
    String bestNode = null;
    Outcome best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (String name : ledger.nodeNames()) {
      int slot = ledger.nodeSlot(name);
      if (slot < 0) {
        continue;
      }
      Outcome o;
      if (plan.byClass) {
        ClassEntry c = classEntry(plan, name, slot, null);
        o = c != null ? c.outcome : outcome(plan, name, ledger.nodeUsage(slot), null);
      } else {
        o = evaluate(plan, ledger.nodeUsage(slot), null);
      }
      if (o == NO_FIT) {
        continue;
      }
      double s = sanitize(o.score);
      if (best == null || better(s, bestScore)) {
        best = o;
        bestNode = name;
        bestScore = s;
      }
    }
    if (best == null || bestNode == null) {
      return Optional.empty();
    }
    if (plan.byClass) {
      // a shared outcome names the GPUs of another node in the same state: take this node's own
      best = outcome(plan, bestNode, ledger.nodeUsage(ledger.nodeSlot(bestNode)), null);
    }
    return Optional.of(allocation(pod, bestNode, best));
  }

  /**
   * Explains the pod on one node: the reason line (as {@link #filter} gives it, or {@code fits:
   * ...} with the GPUs it would get) and one line per GPU.
   */
  public Rejection explain(PodDemand pod, String node) {
    NodeUsage u = ledger.nodeUsage(node);
    if (u == null) {
      return new Rejection(node, noGpuNode(), List.of());
    }
    Plan plan = new Plan(pod, false);
    Failure failure = new Failure();
    failure.keepState = true;
    Outcome o = evaluate(plan, u, failure);
    List<String> gpuReasons = new ArrayList<>(u.size());
    if (o != NO_FIT) {
      StringBuilder sb = new StringBuilder("fits: ");
      for (int c = 0; c < o.grants.size(); c++) {
        ContainerGrant cg = o.grants.get(c);
        if (c > 0) {
          sb.append("; ");
        }
        sb.append("container ").append(cg.container()).append(" on ");
        for (int g = 0; g < cg.gpus().size(); g++) {
          GpuGrant gg = cg.gpus().get(g);
          int p = u.position(gg.uuid());
          if (g > 0) {
            sb.append(", ");
          }
          sb.append(label(u.gpu(p)))
              .append(' ')
              .append(gg.computeMilli())
              .append("m/")
              .append(gg.memoryMib())
              .append(" MiB");
        }
      }
      for (int i = 0; i < u.size(); i++) {
        gpuReasons.add(label(u.gpu(i)) + ": " + status(u, i));
      }
      return new Rejection(node, sb.toString(), gpuReasons);
    }
    if (failure.kind == FAIL_SHARE || failure.kind == FAIL_WHOLE) {
      GpuDemand d = pod.containers().get(failure.container);
      for (int i = 0; i < u.size(); i++) {
        gpuReasons.add(label(u.gpu(i)) + ": " + gpuReason(plan, u, i, d, failure));
      }
    } else {
      for (int i = 0; i < u.size(); i++) {
        gpuReasons.add(label(u.gpu(i)) + ": " + status(u, i));
      }
    }
    return new Rejection(node, summary(plan, u, failure, null), gpuReasons);
  }

  // ---------------------------------------------------------------- evaluation

  private Plan plan(PodDemand pod) {
    if (supplyAware != null && ledger.nodesVersion() != supplyVersion) {
      supplyVersion = ledger.nodesVersion();
      supplyAware.supply(supply(ledger));
    }
    long v = ledger.version();
    if (v != cachedVersion || (cachedPod != pod && !pod.equals(cachedPod))) {
      cache.clear();
      reasons.clear();
      cachedPod = pod;
      cachedVersion = v;
      stamp++;
    }
    return new Plan(pod, stateScored);
  }

  /** GPU compute by model: healthy GPUs that are neither cordoned nor MIG parents. */
  static Map<String, Long> supply(Ledger ledger) {
    Map<String, Long> out = new HashMap<>();
    for (String name : ledger.nodeNames()) {
      NodeUsage u = ledger.nodeUsage(name);
      if (u == null) {
        continue;
      }
      for (int i = 0, n = u.size(); i < n; i++) {
        if (u.isHealthy(i) && !u.isCordoned(i) && !u.isMigParent(i)) {
          out.merge(u.gpu(i).model(), (long) u.computeMilli(i), Long::sum);
        }
      }
    }
    return out;
  }

  /**
   * The outcome of the pod on a node, shared by all nodes in the same state, or null when the GPU
   * choice depends on the order of the node's GPUs (evaluate the node itself then). The outcome's
   * grants name the GPUs of whichever node was evaluated, so only its score and whether it fits may
   * be used. Fills {@code failure} when given.
   */
  private @Nullable ClassEntry classEntry(
      Plan plan, String name, int slot, @Nullable Failure failure) {
    int id = ledger.stateClass(slot);
    if (id >= byClass.length) {
      byClass = Arrays.copyOf(byClass, Math.max(id + 1, byClass.length * 2));
    }
    ClassEntry c = byClass[id];
    if (c != null && c.stamp == stamp) {
      if (!c.orderFree) {
        return null;
      }
      if (failure != null) {
        failure.kind = c.kind;
        failure.container = c.container;
        failure.available = c.available;
      }
      return c;
    }
    NodeUsage u = ledger.nodeUsage(slot);
    Failure f = failure != null ? failure : classFailure;
    f.reset();
    trackOrder = true;
    orderFree = true;
    Outcome o;
    try {
      o = evaluate(plan, u, f);
    } finally {
      trackOrder = false;
    }
    if (c == null) {
      c = new ClassEntry();
      byClass[id] = c;
    }
    c.stamp = stamp;
    c.orderFree = orderFree;
    c.outcome = o;
    c.reason = null;
    c.kind = f.kind;
    c.container = f.container;
    c.available = f.available;
    if (!orderFree) {
      cache.put(name, o);
      return null;
    }
    return c;
  }

  private Outcome outcome(Plan plan, String name, NodeUsage u, @Nullable Failure failure) {
    Outcome o = failure == null ? cache.get(name) : null;
    if (o == null) {
      o = evaluate(plan, u, failure);
      cache.put(name, o);
    }
    return o;
  }

  private Outcome evaluate(Plan plan, NodeUsage u, @Nullable Failure f) {
    PodDemand pod = plan.pod;
    GpuNode node = u.node();
    if (node.cpuMilli() > 0 && pod.cpuMilli() > 0 && pod.cpuMilli() > u.freeCpuMilli()) {
      return fail(f, FAIL_HOST_CPU, -1, 0);
    }
    if (node.memoryMib() > 0 && pod.memoryMib() > 0 && pod.memoryMib() > u.freeHostMemoryMib()) {
      return fail(f, FAIL_HOST_MEMORY, -1, 0);
    }
    int n = u.size();
    int containers = pod.containers().size();
    if (scratchMilli.length < n) {
      scratchMilli = new int[n];
      scratchMem = new long[n];
      scratchTaken = new int[n];
    }
    int[] addMilli = scratchMilli;
    long[] addMem = scratchMem;
    int[] takenBy = scratchTaken;
    for (int i = 0; i < n; i++) {
      addMilli[i] = 0;
      addMem[i] = 0;
      takenBy[i] = -1;
    }
    if (trackOrder && scratchScore.length < n) {
      scratchScore = new double[n];
    }
    double[] scoreOf = scratchScore;
    GpuGrant[][] chosen = new GpuGrant[containers][];
    NodeView view = null;
    for (int oi : plan.order) {
      GpuDemand d = pod.containers().get(oi);
      if (d.isShare()) {
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        long bestMem = 0;
        for (int i = 0; i < n; i++) {
          if (staticFail(plan, u, i) != 0 || u.isExclusive(i) || takenBy[i] >= 0) {
            continue;
          }
          int used = u.usedMilli(i) + addMilli[i];
          int cap = u.computeMilli(i);
          if (used + d.computeMilli() > cap) {
            continue;
          }
          long capMem = u.memoryMib(i);
          long mem = shareMemory(d, cap, capMem);
          long usedMem = u.usedMemoryMib(i) + addMem[i];
          if (usedMem + mem > capMem) {
            continue;
          }
          Gpu gpu = u.gpu(i);
          double s;
          if (preference != null) {
            s = preference.gpuScore(gpu, used, usedMem, d.computeMilli(), mem);
          } else {
            if (view == null) {
              view = view(u);
            }
            chosen[oi] = new GpuGrant[] {new GpuGrant(gpu.uuid(), d.computeMilli(), mem)};
            s = policy.score(view, pod, grants(pod, chosen));
            chosen[oi] = null;
          }
          if (trackOrder) {
            scoreOf[i] = s;
          }
          if (best < 0 || better(s, bestScore)) {
            best = i;
            bestScore = s;
            bestMem = mem;
          }
        }
        if (best < 0) {
          return fail(f, FAIL_SHARE, oi, 0, n);
        }
        if (trackOrder) {
          checkOrder(u, best, bestScore, scoreOf, n, d, addMilli, addMem, takenBy, plan);
        }
        chosen[oi] = new GpuGrant[] {new GpuGrant(u.gpu(best).uuid(), d.computeMilli(), bestMem)};
        addMilli[best] += d.computeMilli();
        addMem[best] += bestMem;
      } else {
        int k = d.wholeGpus();
        long perGpuMem = d.memoryMib() == 0 ? 0 : (d.memoryMib() + k - 1) / k;
        GpuGrant[] picked = new GpuGrant[k];
        for (int j = 0; j < k; j++) {
          int best = -1;
          double bestScore = Double.NEGATIVE_INFINITY;
          for (int i = 0; i < n; i++) {
            if (staticFail(plan, u, i) != 0
                || u.isMigInstance(i)
                || u.holderCount(i) > 0
                || addMilli[i] > 0
                || takenBy[i] >= 0
                || u.memoryMib(i) < perGpuMem) {
              continue;
            }
            Gpu gpu = u.gpu(i);
            double s;
            if (preference != null) {
              s = preference.gpuScore(gpu, 0, 0, GpuDemand.WHOLE_GPU_MILLI, gpu.memoryMib());
            } else {
              if (view == null) {
                view = view(u);
              }
              picked[j] = new GpuGrant(gpu.uuid(), GpuDemand.WHOLE_GPU_MILLI, gpu.memoryMib());
              chosen[oi] = Arrays.copyOf(picked, j + 1);
              s = policy.score(view, pod, grants(pod, chosen));
              chosen[oi] = null;
            }
            if (trackOrder) {
              scoreOf[i] = s;
            }
            if (best < 0 || better(s, bestScore)) {
              best = i;
              bestScore = s;
            }
          }
          if (best < 0) {
            return fail(f, FAIL_WHOLE, oi, j, n);
          }
          if (trackOrder) {
            checkOrder(u, best, bestScore, scoreOf, n, d, addMilli, addMem, takenBy, plan);
          }
          Gpu gpu = u.gpu(best);
          picked[j] = new GpuGrant(gpu.uuid(), GpuDemand.WHOLE_GPU_MILLI, gpu.memoryMib());
          takenBy[best] = oi;
          addMilli[best] += GpuDemand.WHOLE_GPU_MILLI;
          addMem[best] += gpu.memoryMib();
        }
        chosen[oi] = picked;
      }
    }
    List<ContainerGrant> grants = grants(pod, chosen);
    if (view == null) {
      view = view(u);
    }
    return new Outcome(grants, policy.score(view, pod, grants));
  }

  /**
   * Clears {@link #orderFree} unless GPU {@code best} wins over every unlike candidate by more than
   * rounding (then any order of the GPUs would pick one like it). Candidates are found again with
   * the same tests as the loops in {@link #evaluate}; their scores were kept in {@code scoreOf}.
   */
  private void checkOrder(
      NodeUsage u,
      int best,
      double bestScore,
      double[] scoreOf,
      int n,
      GpuDemand d,
      int[] addMilli,
      long[] addMem,
      int[] takenBy,
      Plan plan) {
    for (int i = 0; i < n && orderFree; i++) {
      if (i == best || !candidate(plan, u, i, d, addMilli, addMem, takenBy)) {
        continue;
      }
      if (!u.sameState(i, best) && !better(bestScore, scoreOf[i])) {
        orderFree = false;
      }
    }
  }

  private static boolean candidate(
      Plan plan, NodeUsage u, int i, GpuDemand d, int[] addMilli, long[] addMem, int[] takenBy) {
    if (staticFail(plan, u, i) != 0 || takenBy[i] >= 0) {
      return false;
    }
    if (d.isShare()) {
      int cap = u.computeMilli(i);
      long capMem = u.memoryMib(i);
      return !u.isExclusive(i)
          && u.usedMilli(i) + addMilli[i] + d.computeMilli() <= cap
          && u.usedMemoryMib(i) + addMem[i] + shareMemory(d, cap, capMem) <= capMem;
    }
    int k = d.wholeGpus();
    long perGpuMem = d.memoryMib() == 0 ? 0 : (d.memoryMib() + k - 1) / k;
    return !u.isMigInstance(i)
        && u.holderCount(i) == 0
        && addMilli[i] == 0
        && u.memoryMib(i) >= perGpuMem;
  }

  private static Outcome fail(@Nullable Failure f, int kind, int container, int available) {
    if (f != null) {
      f.kind = kind;
      f.container = container;
      f.available = available;
    }
    return NO_FIT;
  }

  /** Fails, keeping what the pod's earlier containers took when the words will need it. */
  private Outcome fail(@Nullable Failure f, int kind, int container, int available, int n) {
    if (f != null && f.keepState) {
      f.addMilli = Arrays.copyOf(scratchMilli, n);
      f.addMem = Arrays.copyOf(scratchMem, n);
      f.takenBy = Arrays.copyOf(scratchTaken, n);
    }
    return fail(f, kind, container, available);
  }

  /** Grants of the containers chosen so far, in the pod's container order. */
  private static List<ContainerGrant> grants(PodDemand pod, @Nullable GpuGrant[][] chosen) {
    List<ContainerGrant> out = new ArrayList<>(chosen.length);
    for (int c = 0; c < chosen.length; c++) {
      GpuGrant[] g = chosen[c];
      if (g != null) {
        GpuDemand d = pod.containers().get(c);
        int limit =
            d.isShare()
                ? (d.limitMilli() == 0
                    ? d.computeMilli()
                    : Math.max(d.limitMilli(), d.computeMilli()))
                : GpuDemand.WHOLE_GPU_MILLI;
        out.add(new ContainerGrant(d.container(), List.of(g), limit));
      }
    }
    return out;
  }

  private static NodeView view(NodeUsage u) {
    GpuNode node = u.node();
    long cpu = node.cpuMilli() == 0 ? 0 : u.freeCpuMilli();
    long mem = node.memoryMib() == 0 ? 0 : u.freeHostMemoryMib();
    return new NodeView(node, u.usage(), cpu, mem);
  }

  private static Allocation allocation(PodDemand pod, String node, Outcome o) {
    return new Allocation(pod.podKey(), pod.podUid(), node, o.grants, AllocationState.RESERVED);
  }

  /**
   * The memory a share takes on a GPU: as asked, or its part of the GPU's memory rounded down (at
   * least 1 MiB), so that shares whose compute adds up to the whole GPU also fit its memory (four
   * quarters of an 81,559 MiB H100 take 20,389 MiB each; rounded up they would need 81,560).
   */
  static long shareMemory(GpuDemand d, Gpu gpu) {
    return shareMemory(d, gpu.computeMilli(), gpu.memoryMib());
  }

  private static long shareMemory(GpuDemand d, int computeMilli, long memoryMib) {
    if (d.memoryMib() > 0) {
      return d.memoryMib();
    }
    return Math.max(1, (long) d.computeMilli() * memoryMib / computeMilli);
  }

  private static int staticFail(Plan plan, NodeUsage u, int i) {
    int mask = 0;
    if (!u.isHealthy(i)) {
      mask |= UNHEALTHY;
    }
    if (u.isCordoned(i)) {
      mask |= CORDONED;
    }
    if (u.isMigParent(i)) {
      mask |= MIG_PARENT;
    }
    if (plan.models.length > 0) {
      String model = u.modelLowerCase(i);
      boolean ok = false;
      for (String m : plan.models) {
        if (model.contains(m)) {
          ok = true;
          break;
        }
      }
      if (!ok) {
        mask |= MODEL;
      }
    }
    if (plan.pinned && !plan.pod.pinnedUuids().contains(u.gpu(i).uuid())) {
      mask |= NOT_PINNED;
    }
    if (plan.excluded && plan.pod.excludedUuids().contains(u.gpu(i).uuid())) {
      mask |= EXCLUDED;
    }
    return mask;
  }

  /**
   * True when {@code s} beats {@code best} by more than rounding noise: scores that differ only in
   * the last bits (the same placement summed in another order) are ties, and ties keep the earlier
   * candidate.
   */
  static boolean better(double s, double best) {
    if (Double.isNaN(s)) {
      return false;
    }
    if (Double.isNaN(best) || best == Double.NEGATIVE_INFINITY) {
      return s > best || best != best;
    }
    return s - best > 1e-12 * Math.max(1, Math.abs(best));
  }

  private static double sanitize(double s) {
    return Double.isNaN(s) ? Double.NEGATIVE_INFINITY : s;
  }

  // ---------------------------------------------------------------- words

  private static String noGpuNode() {
    return "no GPUNode for this node: its GPUs are not known (is the node agent running there?)";
  }

  /** The one-line reason: the same words for every node that fails the same way. */
  private static String summary(
      Plan plan, NodeUsage u, Failure f, @Nullable Map<Long, String> cache) {
    if (cache == null || u.size() == 0 || u.hasCordon()) {
      return summaryText(plan, u, f);
    }
    int mask = 0;
    boolean anyAllowed = false;
    if (f.kind == FAIL_SHARE || f.kind == FAIL_WHOLE) {
      boolean whole = !plan.pod.containers().get(f.container).isShare();
      for (int i = 0; i < u.size(); i++) {
        int m = staticFail(plan, u, i);
        if (whole && u.gpu(i).isMig()) {
          m |= MIG_INSTANCE;
        }
        mask |= m;
        anyAllowed |= m == 0;
      }
    }
    long key =
        ((long) f.kind << 56)
            | ((long) (f.container & 0xffff) << 40)
            | ((long) (anyAllowed ? 0 : mask) << 24)
            | (anyAllowed ? 1L << 23 : 0)
            | (f.available & 0x7fffff);
    String text = cache.get(key);
    if (text == null) {
      text = summaryText(plan, u, f);
      cache.put(key, text);
    }
    return text;
  }

  private static String summaryText(Plan plan, NodeUsage u, Failure f) {
    PodDemand pod = plan.pod;
    switch (f.kind) {
      case FAIL_HOST_CPU:
        return "not enough free host CPU for " + pod.cpuMilli() + "m";
      case FAIL_HOST_MEMORY:
        return "not enough free host memory for " + pod.memoryMib() + " MiB";
      case FAIL_SHARE:
      case FAIL_WHOLE:
        break;
      default:
        return "does not fit";
    }
    GpuDemand d = pod.containers().get(f.container);
    String prefix = pod.containers().size() > 1 ? "container " + d.container() + ": " : "";
    if (u.size() == 0) {
      return prefix + "the node has no GPUs";
    }
    int mask = 0;
    boolean anyAllowed = false;
    for (int i = 0; i < u.size(); i++) {
      int m = staticFail(plan, u, i);
      if (!d.isShare() && u.gpu(i).isMig()) {
        m |= MIG_INSTANCE;
      }
      mask |= m;
      anyAllowed |= m == 0;
    }
    if (!anyAllowed) {
      return prefix + "no GPU the pod may use: " + describe(mask, plan, u);
    }
    // GPUs the pod could use but for their cordon: name them, the operator's reason is the news
    String cordons = u.hasCordon() ? cordons(plan, u, d) : "";
    String tail = cordons.isEmpty() ? "" : " (" + cordons + ")";
    if (d.isShare()) {
      String mem = d.memoryMib() > 0 ? d.memoryMib() + " MiB memory" : "its share of memory";
      return prefix + "no GPU has " + d.computeMilli() + "m compute and " + mem + " free" + tail;
    }
    int k = d.wholeGpus();
    return prefix
        + "needs "
        + k
        + (k == 1 ? " idle GPU" : " idle GPUs")
        + (d.memoryMib() > 0 ? " with " + d.memoryMib() + " MiB memory" : "")
        + ", found "
        + f.available
        + tail;
  }

  /**
   * Names the node's cordoned GPUs with the operator's reasons, e.g. {@code GPU GPU-e4aea6a9-1b4…
   * is cordoned: Xid 79, card to be replaced}; at most {@value #CORDONS_NAMED}, then how many more.
   * With {@code usableBy} only those that container could otherwise use.
   */
  private static String cordons(Plan plan, NodeUsage u, @Nullable GpuDemand usableBy) {
    StringBuilder sb = new StringBuilder();
    int named = 0;
    int more = 0;
    for (int i = 0; i < u.size(); i++) {
      if (!u.isCordoned(i)) {
        continue;
      }
      if (usableBy != null
          && ((staticFail(plan, u, i) & ~CORDONED) != 0
              || (!usableBy.isShare() && u.gpu(i).isMig()))) {
        continue;
      }
      if (named == CORDONS_NAMED) {
        more++;
        continue;
      }
      if (named++ > 0) {
        sb.append("; ");
      }
      sb.append(cordonWords(u.gpu(i)));
    }
    if (more > 0) {
      sb.append("; ")
          .append(more)
          .append(more == 1 ? " more GPU" : " more GPUs")
          .append(" cordoned");
    }
    return sb.toString();
  }

  /** {@code GPU GPU-e4aea6a9-1b4… is cordoned: Xid 79, card to be replaced}. */
  public static String cordonWords(Gpu gpu) {
    return "GPU " + shortUuid(gpu.uuid()) + " is " + cordonStatus(gpu);
  }

  /** {@code cordoned: Xid 79, card to be replaced}, or {@code cordoned} without a reason. */
  private static String cordonStatus(Gpu gpu) {
    String reason = gpu.cordonReason();
    return reason == null || reason.isBlank() ? "cordoned" : "cordoned: " + reason.strip();
  }

  private static String shortUuid(String uuid) {
    return uuid.length() > 16 ? uuid.substring(0, 16) + "…" : uuid;
  }

  private static String describe(int mask, Plan plan, NodeUsage u) {
    List<String> parts = new ArrayList<>(4);
    if ((mask & UNHEALTHY) != 0) {
      parts.add("unhealthy");
    }
    if ((mask & MIG_PARENT) != 0) {
      parts.add("MIG enabled (only its MIG instances are used)");
    }
    if ((mask & MIG_INSTANCE) != 0) {
      parts.add("MIG instances cannot take a whole-GPU request");
    }
    if ((mask & MODEL) != 0) {
      parts.add("model not allowed (allowed: " + allowed(plan) + ")");
    }
    if ((mask & NOT_PINNED) != 0) {
      parts.add("not among the pinned GPUs");
    }
    if ((mask & EXCLUDED) != 0) {
      parts.add("excluded by the pod");
    }
    String text = String.join(", ", parts);
    if ((mask & CORDONED) != 0) {
      // the operator's reasons may hold commas: set apart with a semicolon
      String cordons = cordons(plan, u, null);
      text = text.isEmpty() ? cordons : text + "; " + cordons;
    }
    return text;
  }

  private static String allowed(Plan plan) {
    return String.join(", ", new TreeSet<>(plan.pod.models()));
  }

  /** Why GPU {@code i} cannot take container {@code d}, given what the pod took before it. */
  private static String gpuReason(Plan plan, NodeUsage u, int i, GpuDemand d, Failure f) {
    Gpu gpu = u.gpu(i);
    if (u.isMigParent(i)) {
      return "MIG enabled: pods use its MIG instances";
    }
    if (!gpu.healthy()) {
      return "unhealthy";
    }
    if (gpu.cordoned()) {
      return cordonStatus(gpu);
    }
    int mask = staticFail(plan, u, i);
    if ((mask & MODEL) != 0) {
      return "model " + gpu.model() + " not allowed (allowed: " + allowed(plan) + ")";
    }
    if ((mask & NOT_PINNED) != 0) {
      return "not among the GPUs the pod is pinned to";
    }
    if ((mask & EXCLUDED) != 0) {
      return "excluded by the pod";
    }
    if (!d.isShare() && gpu.isMig()) {
      return "MIG instance cannot take a whole-GPU request";
    }
    if (u.isExclusive(i)) {
      return "held whole by " + String.join(", ", u.holders(i));
    }
    int[] takenBy = f.takenBy;
    if (takenBy != null && takenBy[i] >= 0 && takenBy[i] != f.container) {
      return "taken whole by container "
          + plan.pod.containers().get(takenBy[i]).container()
          + " of this pod";
    }
    int addMilli = f.addMilli == null ? 0 : f.addMilli[i];
    long addMem = f.addMem == null ? 0 : f.addMem[i];
    if (!d.isShare()) {
      if (u.holderCount(i) > 0) {
        return "in use by " + String.join(", ", u.holders(i)) + " (a whole GPU must be idle)";
      }
      if (addMilli > 0 && (takenBy == null || takenBy[i] != f.container)) {
        return "used by another container of this pod (a whole GPU must be idle)";
      }
      int k = d.wholeGpus();
      long perGpu = d.memoryMib() == 0 ? 0 : (d.memoryMib() + k - 1) / k;
      if (gpu.memoryMib() < perGpu) {
        return gpu.memoryMib() + " MiB memory, need " + perGpu + " MiB per GPU";
      }
      return "idle and allowed";
    }
    int freeMilli = Math.max(0, gpu.computeMilli() - u.usedMilli(i) - addMilli);
    long freeMem = Math.max(0, gpu.memoryMib() - u.usedMemoryMib(i) - addMem);
    long mem = shareMemory(d, gpu);
    List<String> parts = new ArrayList<>(2);
    if (freeMilli < d.computeMilli()) {
      parts.add(
          freeMilli
              + "m of "
              + gpu.computeMilli()
              + "m compute free, need "
              + d.computeMilli()
              + "m");
    }
    if (freeMem < mem) {
      parts.add(freeMem + " of " + gpu.memoryMib() + " MiB memory free, need " + mem + " MiB");
    }
    return parts.isEmpty() ? "fits" : String.join("; ", parts);
  }

  private static String status(NodeUsage u, int i) {
    Gpu gpu = u.gpu(i);
    if (u.isMigParent(i)) {
      return "MIG enabled: pods use its MIG instances";
    }
    StringBuilder sb = new StringBuilder();
    if (!gpu.healthy()) {
      sb.append("unhealthy; ");
    }
    if (gpu.cordoned()) {
      sb.append(cordonStatus(gpu)).append("; ");
    }
    if (u.isExclusive(i)) {
      return sb.append("held whole by ").append(String.join(", ", u.holders(i))).toString();
    }
    sb.append(u.freeMilli(i))
        .append("m of ")
        .append(gpu.computeMilli())
        .append("m compute and ")
        .append(u.freeMemoryMib(i))
        .append(" of ")
        .append(gpu.memoryMib())
        .append(" MiB memory free");
    if (u.holderCount(i) > 0) {
      sb.append(" (used by ").append(String.join(", ", u.holders(i))).append(')');
    }
    return sb.toString();
  }

  /** {@code GPU 3 (NVIDIA H100 80GB HBM3, GPU-1234abcd…)}; MIG instances name their profile. */
  static String label(Gpu gpu) {
    StringBuilder sb = new StringBuilder("GPU ").append(gpu.index());
    if (gpu.isMig()) {
      sb.append(" MIG ").append(gpu.migProfile() == null ? "instance" : gpu.migProfile());
    }
    sb.append(" (").append(gpu.model()).append(", ");
    sb.append(shortUuid(gpu.uuid())).append(')');
    return sb.toString();
  }

  // ---------------------------------------------------------------- state

  /** The pod, with its containers in placement order and its models as an array. */
  private static final class Plan {
    final PodDemand pod;
    final int[] order;
    final String[] models;
    final boolean pinned;
    final boolean excluded;
    final boolean byClass;

    Plan(PodDemand pod, boolean stateScored) {
      this.pod = pod;
      this.pinned = !pod.pinnedUuids().isEmpty();
      this.excluded = !pod.excludedUuids().isEmpty();
      this.byClass = stateScored && !pinned && !excluded && pod.containers().size() == 1;
      List<GpuDemand> cs = pod.containers();
      Integer[] idx = new Integer[cs.size()];
      for (int i = 0; i < idx.length; i++) {
        idx[i] = i;
      }
      if (idx.length > 1) {
        // whole GPUs first (they need idle GPUs), then shares from largest to smallest
        Arrays.sort(
            idx, (a, b) -> Integer.compare(cs.get(b).computeMilli(), cs.get(a).computeMilli()));
      }
      order = new int[idx.length];
      for (int i = 0; i < idx.length; i++) {
        order[i] = idx[i];
      }
      models = pod.models().toArray(new String[0]);
      Arrays.sort(models);
    }
  }

  /** Where evaluation stopped, for the words. */
  private static final class Failure {
    boolean keepState;
    int kind;
    int container = -1;
    int available;
    int @Nullable [] addMilli;
    long @Nullable [] addMem;
    int @Nullable [] takenBy;

    void reset() {
      kind = 0;
      container = -1;
      available = 0;
      addMilli = null;
      addMem = null;
      takenBy = null;
    }
  }

  private record Outcome(List<ContainerGrant> grants, double score) {}

  /** One node state's outcome for the current pod and ledger version. */
  private static final class ClassEntry {
    int stamp;
    boolean orderFree;
    Outcome outcome = NO_FIT;
    @Nullable String reason;
    int kind;
    int container;
    int available;
  }
}
