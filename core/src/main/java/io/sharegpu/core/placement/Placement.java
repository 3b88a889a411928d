package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Decides where a pod fits and where it goes, on top of a {@link Ledger} and a {@link
 * PlacementPolicy}. Nothing here changes the ledger: callers commit what {@link #choose} or {@link
 * #place} return.
 *
 * <p>The fit rules are {@link FitRules}; {@link NodeEvaluator} applies them and the policy to one
 * node; {@link RejectionWords} says why a pod does not fit. All containers of a pod go to one node;
 * whole-GPU containers are placed first, then shares from largest to smallest, each on the GPU the
 * policy prefers; shares of one pod may share a GPU when it fits.
 *
 * <p>{@link #filter} remembers its work for the same pod and ledger version ({@link RequestCache}),
 * so that {@link #prioritize} and {@link #choose} that follow do not repeat it. With a {@link
 * StateScored} policy and a pod of one container without pins or excludes, {@link #filter}, {@link
 * #prioritize} and {@link #place} evaluate one node per {@linkplain NodeUsage#stateClass node
 * state} and reuse the answer for the other nodes in that state (decisions are the same). Not
 * thread-safe.
 */
public final class Placement {
  private final Ledger ledger;
  private final PlacementPolicy policy;
  private final boolean stateScored;
  private final @Nullable SupplyAware supplyAware;
  private long supplyVersion = -1;
  private boolean hostNodes;
  private long freeVersion = -1;

  private final NodeEvaluator evaluator;
  private final RequestCache cache = new RequestCache();
  private final Failure classFailure = new Failure();

  /** Places on {@code ledger} (read, never changed) with {@code policy}. */
  public Placement(Ledger ledger, PlacementPolicy policy) {
    this.ledger = ledger;
    this.policy = policy;
    this.stateScored = policy instanceof StateScored;
    this.supplyAware = policy instanceof SupplyAware s ? s : null;
    this.evaluator = new NodeEvaluator(policy);
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
    PodPlan plan = plan(pod);
    int n = nodeNames.size();
    String[] feasible = new String[n];
    Rejection[] rejected = new Rejection[n];
    int r = 0;
    Failure failure = new Failure();
    cache.startFeasible(n);
    int seen = cache.nextSeenStamp();
    @Nullable Set<String> unknown = null;
    int k = 0;
    for (String name : nodeNames) {
      int slot = ledger.nodeSlot(name);
      if (slot < 0) {
        if (unknown == null) {
          unknown = new HashSet<>();
        }
        if (unknown.add(name)) {
          rejected[r++] = new Rejection(name, RejectionWords.noGpuNode(), List.of());
        }
        continue;
      }
      if (!cache.firstSight(slot, seen)) {
        continue;
      }
      if (plan.byClass) {
        RequestCache.ClassEntry c = classEntry(plan, name, slot);
        if (c != null) {
          if (c.outcome.fits()) {
            feasible[k] = name;
            cache.feasibleScore(k++, sanitize(c.outcome.score()));
          } else {
            rejected[r++] =
                new Rejection(
                    name, classReason(plan, c, ledger.nodeUsage(slot), failure), List.of());
          }
          continue;
        }
      }
      failure.reset();
      NodeUsage u = ledger.nodeUsage(slot);
      Outcome o = outcome(plan, name, u, failure);
      if (!o.fits()) {
        rejected[r++] =
            new Rejection(
                name, RejectionWords.summary(plan, u, failure, cache.reasons()), List.of());
      } else {
        feasible[k] = name;
        cache.feasibleScore(k++, sanitize(o.score()));
      }
    }
    cache.endFeasible(feasible, k);
    return new FilterResult(feasible, k, rejected, r);
  }

  /**
   * Scores the nodes 0..10: the policy's best node gets 10, other nodes the pod fits 1..9 in the
   * policy's order, nodes it does not fit (or unknown) 0. A name asked twice is answered once.
   */
  public NodeScores prioritize(PodDemand pod, Collection<String> nodeNames) {
    PodPlan plan = plan(pod);
    int n = nodeNames.size();
    double[] scores = new double[n];
    String[] names = new String[n];
    double max = Double.NEGATIVE_INFINITY;
    double min = Double.POSITIVE_INFINITY;
    int k = 0;
    // the feasible names of the last filter, for the same pod and ledger: take its scores
    boolean same = cache.lastFilterFound(n);
    int seen = -1;
    @Nullable Set<String> unknown = null;
    for (String name : nodeNames) {
      String last = same ? cache.lastFeasible(k) : null;
      if (last != null && (last == name || last.equals(name))) {
        double s = cache.lastScore(k);
        names[k] = name;
        scores[k++] = s;
        max = Math.max(max, s);
        min = Math.min(min, s);
        continue;
      }
      same = false;
      if (seen < 0) {
        // leaving the fast path: mark the names taken so far, to answer a repeated name once
        seen = cache.nextSeenStamp();
        for (int i = 0; i < k; i++) {
          cache.firstSight(ledger.nodeSlot(names[i]), seen);
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
        o = Outcome.NO_FIT;
      } else if (!cache.firstSight(slot, seen)) {
        continue;
      } else if (plan.byClass) {
        RequestCache.ClassEntry c = classEntry(plan, name, slot);
        o = c != null ? c.outcome : outcome(plan, name, ledger.nodeUsage(slot), null);
      } else {
        o = outcome(plan, name, ledger.nodeUsage(slot), null);
      }
      names[k] = name;
      double s = o.fits() ? sanitize(o.score()) : Double.NaN;
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
      } else if (!NodeEvaluator.better(max, s)) {
        v = 10;
      } else {
        v = spread ? 1 + (int) Math.floor(8 * (s - min) / range) : 1;
        v = Math.min(9, Math.max(1, v));
      }
      out[i] = (byte) v;
    }
    return new NodeScores(names, out, k);
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
    return o.fits() ? Optional.of(allocation(pod, node, o)) : Optional.empty();
  }

  /**
   * Returns the policy's best allocation of the pod on {@code usage}, a node's usage that need not
   * be the ledger's own: typically {@link Ledger#usageWithout}, to ask whether the pod would fit
   * were some pods evicted. The same rules and policy as {@link #filter} and {@link
   * #choose(PodDemand, String)}; nothing is cached. Empty if it does not fit.
   */
  public Optional<Allocation> choose(PodDemand pod, NodeUsage usage) {
    Outcome o = evaluator.evaluate(plan(pod), usage, null);
    return o.fits() ? Optional.of(allocation(pod, usage.node().name(), o)) : Optional.empty();
  }

  /**
   * Returns, for each GPU of {@code usage} by position, the GPU memory in MiB that container {@code
   * container} of {@code pod} would take there were the GPU idle, or -1 where the filter never puts
   * that container however idle the GPU is: unhealthy, cordoned, split into MIG instances, a model
   * the pod does not allow, not pinned or excluded, a share larger than the GPU's compute or
   * memory, or for whole GPUs a MIG instance or less memory per GPU than asked. The filter's own
   * per-GPU rules ({@link FitRules}), for callers that reason about which holders to evict
   * (preemption) and about requests no eviction can satisfy.
   *
   * <p>Example: a share of 250m asking no memory, on an idle H100 of 81559 MiB, takes 20389 MiB (a
   * quarter, rounded down); on an A100 when the pod allows only H100: -1. One whole GPU takes the
   * GPU's whole memory.
   */
  public static long[] memoryOnIdleGpus(PodDemand pod, int container, NodeUsage usage) {
    FitRules rules = new FitRules(pod);
    GpuDemand d = pod.containers().get(container);
    long perGpuMem = FitRules.perGpuMemory(d);
    long[] out = new long[usage.size()];
    for (int i = 0; i < out.length; i++) {
      if (rules.bars(usage, i) != 0) {
        out[i] = -1;
      } else if (d.isShare()) {
        out[i] = FitRules.shareTakesIdle(usage, i, d);
      } else {
        out[i] = FitRules.wholeTakesIdle(usage, i, perGpuMem) ? usage.memoryMib(i) : -1;
      }
    }
    return out;
  }

  /**
   * Returns the policy's best allocation of the pod over all nodes of the ledger (ties go to the
   * node added first); not committed; empty if it fits nowhere.
   */
  public Optional<Allocation> place(PodDemand pod) {
    PodPlan plan = plan(pod);
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
        RequestCache.ClassEntry c = classEntry(plan, name, slot);
        o = c != null ? c.outcome : outcome(plan, name, ledger.nodeUsage(slot), null);
      } else {
        o = evaluator.evaluate(plan, ledger.nodeUsage(slot), null);
      }
      if (!o.fits()) {
        continue;
      }
      double s = sanitize(o.score());
      if (best == null || NodeEvaluator.better(s, bestScore)) {
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
      return new Rejection(node, RejectionWords.noGpuNode(), List.of());
    }
    PodPlan plan = new PodPlan(pod, false);
    Failure failure = new Failure();
    failure.keepState = true;
    Outcome o = evaluator.evaluate(plan, u, failure);
    return o.fits()
        ? RejectionWords.fits(node, u, o)
        : RejectionWords.doesNotFit(node, plan, u, failure);
  }

  /** {@code GPU GPU-e4aea6a9-1b4… is cordoned: Xid 79, card to be replaced}. */
  public static String cordonWords(Gpu gpu) {
    return RejectionWords.cordonWords(gpu);
  }

  // ---------------------------------------------------------------- evaluation

  private PodPlan plan(PodDemand pod) {
    if (supplyAware != null && ledger.nodesVersion() != supplyVersion) {
      supplyVersion = ledger.nodesVersion();
      supplyAware.supply(supply(ledger));
      hostNodes = anyHostNode(ledger);
    }
    if (supplyAware != null && hostNodes && ledger.version() != freeVersion) {
      freeVersion = ledger.version();
      long[] free = freeOnHostNodes(ledger);
      supplyAware.freeOnHostNodes(free[0], free[1]);
    }
    cache.begin(pod, ledger.version());
    return new PodPlan(pod, stateScored);
  }

  /** Whether any node of the ledger reports host CPU. */
  private static boolean anyHostNode(Ledger ledger) {
    for (GpuNode node : ledger.nodes()) {
      if (node.cpuMilli() > 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * Free host CPU and free GPU compute (healthy, not cordoned, not MIG parents), in milli, over the
   * nodes that report host CPU.
   */
  static long[] freeOnHostNodes(Ledger ledger) {
    long cpu = 0;
    long gpu = 0;
    for (String name : ledger.nodeNames()) {
      NodeUsage u = ledger.nodeUsage(name);
      if (u == null || u.node().cpuMilli() <= 0) {
        continue;
      }
      cpu += u.freeCpuMilli();
      for (int i = 0, n = u.size(); i < n; i++) {
        if (u.isHealthy(i) && !u.isCordoned(i) && !u.isMigParent(i)) {
          gpu += u.freeMilli(i);
        }
      }
    }
    return new long[] {cpu, gpu};
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
   * be used; where it failed is kept in the entry, for the words ({@link #classReason}).
   */
  private RequestCache.@Nullable ClassEntry classEntry(PodPlan plan, String name, int slot) {
    int id = ledger.stateClass(slot);
    RequestCache.ClassEntry c = cache.classEntry(id);
    if (c == null) {
      c = evaluateClass(plan, name, slot, id);
    }
    return c.orderFree ? c : null;
  }

  /**
   * Evaluates the node in {@code slot} for its whole state class {@code id} (the first node of the
   * class met for this pod and ledger version). Kept out of {@link #classEntry}, which runs for
   * every node and must stay small enough to be inlined into the loops.
   */
  private RequestCache.ClassEntry evaluateClass(PodPlan plan, String name, int slot, int id) {
    Failure f = classFailure;
    f.reset();
    Outcome o = evaluator.evaluateTrackingOrder(plan, ledger.nodeUsage(slot), f);
    RequestCache.ClassEntry c = cache.freshClassEntry(id);
    c.orderFree = evaluator.orderFree();
    c.outcome = o;
    c.refusal = f.refusal;
    c.container = f.container;
    c.available = f.available;
    if (!c.orderFree) {
      cache.putOutcome(name, o);
    }
    return c;
  }

  /**
   * The reason line of a node whose state class does not fit: made once per class, unless the node
   * has a cordon (the words name this node's cordoned GPUs: not shared with the node's state
   * class). {@code failure} is filled only here, when words are made.
   */
  private String classReason(
      PodPlan plan, RequestCache.ClassEntry c, NodeUsage u, Failure failure) {
    boolean cordon = u.hasCordon();
    String reason = c.reason;
    if (reason != null && !cordon) {
      return reason;
    }
    failure.reset();
    c.failureInto(failure);
    if (cordon) {
      return RejectionWords.summary(plan, u, failure, null);
    }
    reason = RejectionWords.summary(plan, u, failure, cache.reasons());
    c.reason = reason;
    return reason;
  }

  private Outcome outcome(PodPlan plan, String name, NodeUsage u, @Nullable Failure failure) {
    Outcome o = failure == null ? cache.outcome(name) : null;
    if (o == null) {
      o = evaluator.evaluate(plan, u, failure);
      cache.putOutcome(name, o);
    }
    return o;
  }

  private static Allocation allocation(PodDemand pod, String node, Outcome o) {
    return new Allocation(pod.podKey(), pod.podUid(), node, o.grants(), AllocationState.RESERVED);
  }

  private static double sanitize(double s) {
    return Double.isNaN(s) ? Double.NEGATIVE_INFINITY : s;
  }
}
