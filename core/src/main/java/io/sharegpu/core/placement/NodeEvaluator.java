package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Evaluates a pod on one node with the {@link FitRules} and the policy: host CPU and memory first,
 * then each container in plan order on the GPU the policy prefers (the earliest GPU on a tie within
 * rounding, {@link #better}). Reuses scratch arrays between calls; not thread-safe.
 *
 * <p>Candidates are scored as one reused {@link CandidateGrant} ({@link
 * PlacementPolicy#scoreCandidate}), so that scoring allocates no grant objects; the node's chosen
 * placement is kept in its {@link Outcome} as one packed array, and turned into grant objects only
 * when a caller asks for them.
 *
 * <p>With {@link #evaluateTrackingOrder} it also tells whether the GPU choice depends on the order
 * of the node's GPUs (two unlike GPUs within rounding of each other), i.e. whether the answer may
 * stand for every node in the same state.
 */
final class NodeEvaluator {
  private final PlacementPolicy policy;
  private final @Nullable GpuPreference preference;

  private boolean trackOrder;
  private boolean orderFree;
  private double[] scratchScore = new double[8];
  private int[] scratchMilli = new int[8];
  private long[] scratchMem = new long[8];
  private int[] scratchTaken = new int[8];
  private final CandidateGrant candidate = new CandidateGrant();

  NodeEvaluator(PlacementPolicy policy) {
    this.policy = policy;
    this.preference = policy instanceof GpuPreference p ? p : null;
  }

  /** The pod on the node: grants and score, or {@link Outcome#NO_FIT} (and {@code f} filled). */
  Outcome evaluate(PodPlan plan, NodeUsage u, @Nullable Failure f) {
    PodDemand pod = plan.pod;
    FitRules rules = plan.rules;
    GpuNode node = u.node();
    if (node.cpuMilli() > 0 && pod.cpuMilli() > 0 && pod.cpuMilli() > u.freeCpuMilli()) {
      return fail(f, Refusal.HOST_CPU, -1, 0);
    }
    if (node.memoryMib() > 0 && pod.memoryMib() > 0 && pod.memoryMib() > u.freeHostMemoryMib()) {
      return fail(f, Refusal.HOST_MEMORY, -1, 0);
    }
    int n = u.size();
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
    CandidateGrant cand = candidate;
    cand.reset(pod);
    NodeView view = null;
    for (int oi : plan.order) {
      GpuDemand d = pod.containers().get(oi);
      if (d.isShare()) {
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        long bestMem = 0;
        for (int i = 0; i < n; i++) {
          if (takenBy[i] >= 0 || rules.bars(u, i) != 0) {
            continue;
          }
          long mem = FitRules.shareTakes(u, i, d, addMilli[i], addMem[i]);
          if (mem < 0) {
            continue;
          }
          double s;
          if (preference != null) {
            s =
                preference.gpuScore(
                    u.gpu(i),
                    u.usedMilli(i) + addMilli[i],
                    u.usedMemoryMib(i) + addMem[i],
                    d.computeMilli(),
                    mem);
          } else {
            if (view == null) {
              view = view(u);
            }
            cand.set(oi, 0, i, d.computeMilli(), mem);
            cand.setGranted(oi, 1);
            s = policy.scoreCandidate(view, pod, cand);
            cand.setGranted(oi, 0);
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
          return fail(f, Refusal.SHARE, oi, 0, n);
        }
        if (trackOrder) {
          checkOrder(plan, u, best, bestScore, d, addMilli, addMem, takenBy);
        }
        cand.set(oi, 0, best, d.computeMilli(), bestMem);
        cand.setGranted(oi, 1);
        addMilli[best] += d.computeMilli();
        addMem[best] += bestMem;
      } else {
        int k = d.wholeGpus();
        long perGpuMem = FitRules.perGpuMemory(d);
        for (int j = 0; j < k; j++) {
          int best = -1;
          double bestScore = Double.NEGATIVE_INFINITY;
          for (int i = 0; i < n; i++) {
            if (takenBy[i] >= 0
                || rules.bars(u, i) != 0
                || !FitRules.wholeTakes(u, i, perGpuMem, addMilli[i])) {
              continue;
            }
            double s;
            if (preference != null) {
              Gpu gpu = u.gpu(i);
              s = preference.gpuScore(gpu, 0, 0, GpuDemand.WHOLE_GPU_MILLI, gpu.memoryMib());
            } else {
              if (view == null) {
                view = view(u);
              }
              cand.set(oi, j, i, GpuDemand.WHOLE_GPU_MILLI, u.memoryMib(i));
              cand.setGranted(oi, j + 1);
              s = policy.scoreCandidate(view, pod, cand);
              cand.setGranted(oi, 0);
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
            return fail(f, Refusal.WHOLE, oi, j, n);
          }
          if (trackOrder) {
            checkOrder(plan, u, best, bestScore, d, addMilli, addMem, takenBy);
          }
          long mem = u.memoryMib(best);
          cand.set(oi, j, best, GpuDemand.WHOLE_GPU_MILLI, mem);
          takenBy[best] = oi;
          addMilli[best] += GpuDemand.WHOLE_GPU_MILLI;
          addMem[best] += mem;
        }
        cand.setGranted(oi, k);
      }
    }
    if (view == null) {
      view = view(u);
    }
    return Outcome.of(u, pod, cand, policy.scoreCandidate(view, pod, cand));
  }

  /**
   * {@link #evaluate}, and whether any order of the node's GPUs would pick alike GPUs: read it from
   * {@link #orderFree()} right after.
   */
  Outcome evaluateTrackingOrder(PodPlan plan, NodeUsage u, Failure f) {
    trackOrder = true;
    orderFree = true;
    try {
      return evaluate(plan, u, f);
    } finally {
      trackOrder = false;
    }
  }

  /** Whether the last {@link #evaluateTrackingOrder} was free of the GPUs' order. */
  boolean orderFree() {
    return orderFree;
  }

  /**
   * Clears {@link #orderFree} unless GPU {@code best} wins over every unlike candidate by more than
   * rounding (then any order of the GPUs would pick one like it). Candidates are found again with
   * the same rules as {@link #evaluate}; their scores were kept in the score scratch.
   */
  private void checkOrder(
      PodPlan plan,
      NodeUsage u,
      int best,
      double bestScore,
      GpuDemand d,
      int[] addMilli,
      long[] addMem,
      int[] takenBy) {
    for (int i = 0, n = u.size(); i < n && orderFree; i++) {
      if (i == best || takenBy[i] >= 0 || plan.rules.bars(u, i) != 0) {
        continue;
      }
      boolean candidate =
          d.isShare()
              ? FitRules.shareTakes(u, i, d, addMilli[i], addMem[i]) >= 0
              : FitRules.wholeTakes(u, i, FitRules.perGpuMemory(d), addMilli[i]);
      if (candidate && !u.sameState(i, best) && !better(bestScore, scratchScore[i])) {
        orderFree = false;
      }
    }
  }

  private static Outcome fail(@Nullable Failure f, Refusal refusal, int container, int available) {
    if (f != null) {
      f.set(refusal, container, available);
    }
    return Outcome.NO_FIT;
  }

  /** Fails, keeping what the pod's earlier containers took when the words will need it. */
  private Outcome fail(@Nullable Failure f, Refusal refusal, int container, int available, int n) {
    if (f != null && f.keepState) {
      f.addMilli = Arrays.copyOf(scratchMilli, n);
      f.addMem = Arrays.copyOf(scratchMem, n);
      f.takenBy = Arrays.copyOf(scratchTaken, n);
    }
    return fail(f, refusal, container, available);
  }

  private static NodeView view(NodeUsage u) {
    GpuNode node = u.node();
    long cpu = node.cpuMilli() == 0 ? 0 : u.freeCpuMilli();
    long mem = node.memoryMib() == 0 ? 0 : u.freeHostMemoryMib();
    return new NodeView(node, u.usage(), cpu, mem);
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
}
