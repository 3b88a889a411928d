package io.sharegpu.core.preemption;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Chooses which pods to evict from one node so that a pod fits there on real GPUs: the cheapest
 * set, by {@link VictimSetCost}, of the offered candidates of strictly lower priority whose removal
 * lets {@link Placement} place the pod under the filter's rules (a share on one GPU with its
 * memory, k whole GPUs idle, models, pins and excludes honoured, host CPU and memory).
 *
 * <p>The search works per GPU, the way the fit rules do, so that it touches only the pods that
 * matter:
 *
 * <ul>
 *   <li>A share needs room on one GPU: only the candidates on that GPU can make it, so each GPU the
 *       pod may use is searched on its own (branch and bound over the candidates there, candidates
 *       with the same footprint taken cheapest first) and the cheapest GPU wins. Example: a GPU
 *       holding pods of 300m, 200m, 200m and 200m (100m free); a 400m share needs 300m freed:
 *       evicting the 300m pod alone wins over evicting two 200m pods.
 *   <li>k whole GPUs need k idle GPUs: idle ones cost nothing; each busy GPU whose holders are all
 *       candidates costs its holders (a pod holding several GPUs is counted once), and the cheapest
 *       k are chosen.
 *   <li>A pod of several containers, or one short of host CPU or memory, is searched over sets of
 *       the candidates that hold a GPU it may use, cheapest first, each tried with {@link
 *       Placement#choose(PodDemand, NodeUsage)}; exact up to {@value #EXHAUSTIVE_CANDIDATES} such
 *       candidates, beyond that a set from which no victim can be spared (kube-scheduler's
 *       reprieve: from all of them, the most valuable pods spared first).
 * </ul>
 *
 * Every answer is checked by placing the pod with {@link Placement} on the node's usage without the
 * victims ({@link Ledger#usageWithout}); the placement found is part of the answer. The search is
 * exact, except that a GPU whose search passes {@value #STEP_LIMIT} steps (dozens of pods of
 * different sizes sharing it) gets the best set found by then, which bounds a node at about a
 * millisecond. A node of 8 GPUs and about 30 candidates takes a few microseconds ({@code
 * PreemptionBenchmark} in core-benchmarks). Not thread-safe (it uses the {@link Placement}).
 */
public final class VictimSelector {
  /** Most candidates for which the search over sets of a several-container pod is exhaustive. */
  static final int EXHAUSTIVE_CANDIDATES = 10;

  /** Steps of one node's branch and bound before it settles for the best set found so far. */
  static final int STEP_LIMIT = 20_000;

  private final Ledger ledger;
  private final Placement placement;
  private final NodeSearch search = new NodeSearch();

  /**
   * Selects on {@code ledger} (read, never changed), fitting with the filter's {@code placement}.
   */
  public VictimSelector(Ledger ledger, Placement placement) {
    this.ledger = ledger;
    this.placement = placement;
  }

  /**
   * Returns the cheapest set of candidates to evict from {@code node} so that {@code pod} fits
   * there, or why there is none. Candidates of priority {@code >= priority} are never chosen.
   *
   * @param pod the preemptor
   * @param priority the preemptor's priority
   * @param node the node
   * @param candidates pods on the node that may be evicted, each with its allocation as the ledger
   *     holds it; pods that hold no GPU are not candidates (they free no GPU)
   * @throws IllegalArgumentException if a candidate is on another node, or a chosen victim is not
   *     held in the ledger with that allocation or is chosen twice (candidates must come from the
   *     ledger; only the victims are looked up, so that a node costs no lookup per pod)
   */
  public PreemptionPlan select(
      PodDemand pod, int priority, String node, Collection<PreemptionCandidate> candidates) {
    List<PreemptionCandidate> lower = lowerPriority(node, priority, candidates);
    NodeUsage u = ledger.nodeUsage(node);
    if (u == null) {
      return new PreemptionPlan.Impossible(
          node,
          "no GPUNode for this node: its GPUs are not known (is the node agent running there?)");
    }
    long[][] needs = ShortfallClassifier.needs(pod, u);
    @Nullable String never = ShortfallClassifier.unresolvable(pod, u, needs);
    if (never != null) {
      return new PreemptionPlan.Impossible(node, never);
    }
    NodeSearch search = this.search;
    search.reset(u, lower);
    if (pod.containers().size() == 1 && !hostShort(pod, u)) {
      GpuDemand d = pod.containers().get(0);
      boolean decided =
          d.isShare()
              ? search.share(d.computeMilli(), needs[0])
              : search.whole(d.wholeGpus(), needs[0]);
      // a search cut short by its step limit may have missed a set: the general search decides
      if (decided && !(search.truncated() && !search.found())) {
        if (!search.found()) {
          return new PreemptionPlan.Impossible(node, shortReason(pod, priority, lower.size()));
        }
        PreemptionPlan plan = checked(pod, node, lower, search.best());
        if (plan != null) {
          return plan;
        }
      }
    }
    return general(pod, priority, node, lower, search, needs);
  }

  /** The candidates below {@code priority}, in the order offered. */
  private static List<PreemptionCandidate> lowerPriority(
      String node, int priority, Collection<PreemptionCandidate> candidates) {
    List<PreemptionCandidate> out = new ArrayList<>(candidates.size());
    for (PreemptionCandidate c : candidates) {
      if (!c.allocation().node().equals(node)) {
        throw new IllegalArgumentException(
            "candidate " + c.podKey() + " is on node " + c.allocation().node() + ", not " + node);
      }
      if (c.priority() < priority) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * Checks the victims against the ledger: each offered once and holding exactly what the ledger
   * says. Only the victims are checked (a candidate that is not chosen changes nothing), which
   * keeps a node's answer free of one lookup per pod.
   */
  private void requireHeld(List<PreemptionCandidate> victims) {
    for (int i = 0; i < victims.size(); i++) {
      Allocation a = victims.get(i).allocation();
      for (int j = 0; j < i; j++) {
        if (victims.get(j).podUid().equals(a.podUid())) {
          throw new IllegalArgumentException(
              "candidate " + a.podKey() + " (uid " + a.podUid() + ") is offered twice");
        }
      }
      Allocation held = ledger.allocation(a.podUid()).orElse(null);
      if (held != a
          && (held == null
              || !held.node().equals(a.node())
              || !held.containers().equals(a.containers()))) {
        throw new IllegalArgumentException(
            "candidate "
                + a.podKey()
                + " (uid "
                + a.podUid()
                + ") does not hold these GPUs in the ledger");
      }
    }
  }

  /** True when the pod's host CPU or memory does not fit the node now (the filter's first test). */
  private static boolean hostShort(PodDemand pod, NodeUsage u) {
    GpuNode n = u.node();
    return (n.cpuMilli() > 0 && pod.cpuMilli() > 0 && pod.cpuMilli() > u.freeCpuMilli())
        || (n.memoryMib() > 0 && pod.memoryMib() > 0 && pod.memoryMib() > u.freeHostMemoryMib());
  }

  /**
   * The plan for these victims (indices into {@code lower}, ascending) if the pod then fits, as
   * {@link Placement} decides; null otherwise.
   */
  private PreemptionPlan.@Nullable Evict checked(
      PodDemand pod, String node, List<PreemptionCandidate> lower, int[] chosen) {
    List<PreemptionCandidate> victims = new ArrayList<>(chosen.length);
    for (int j : chosen) {
      victims.add(lower.get(j));
    }
    requireHeld(victims);
    Optional<Allocation> a = fitWithout(pod, node, lower, chosen);
    if (a.isEmpty()) {
      return null;
    }
    return new PreemptionPlan.Evict(node, victims, VictimSetCost.of(victims), a.get());
  }

  private Optional<Allocation> fitWithout(
      PodDemand pod, String node, List<PreemptionCandidate> lower, int[] chosen) {
    List<String> uids = new ArrayList<>(chosen.length);
    for (int j : chosen) {
      uids.add(lower.get(j).podUid());
    }
    Optional<NodeUsage> without = ledger.usageWithout(node, uids);
    return without.isEmpty() ? Optional.empty() : placement.choose(pod, without.get());
  }

  /**
   * Sets of the candidates that hold a GPU the pod may use, tried with {@link Placement} cheapest
   * first (all of them when few), else reprieved one by one from all of them.
   */
  private PreemptionPlan general(
      PodDemand pod,
      int priority,
      String node,
      List<PreemptionCandidate> lower,
      NodeSearch search,
      long[][] needs) {
    boolean everyone = hostShort(pod, search.usage());
    int[] relevant = search.relevant(needs, everyone);
    int r = relevant.length;
    if (r <= EXHAUSTIVE_CANDIDATES) {
      // every set, cheapest first: the filter places containers one by one, so a set can fit
      // where a larger one does not
      int sets = 1 << r;
      VictimSetCost[] costs = new VictimSetCost[sets];
      Integer[] order = new Integer[sets];
      List<PreemptionCandidate> members = new ArrayList<>(r);
      for (int mask = 0; mask < sets; mask++) {
        members.clear();
        for (int b = 0; b < r; b++) {
          if ((mask & (1 << b)) != 0) {
            members.add(lower.get(relevant[b]));
          }
        }
        costs[mask] = VictimSetCost.of(members);
        order[mask] = mask;
      }
      Arrays.sort(order, (x, y) -> costs[x].compareTo(costs[y]));
      for (int mask : order) {
        int[] chosen = new int[Integer.bitCount(mask)];
        int k = 0;
        for (int b = 0; b < r; b++) {
          if ((mask & (1 << b)) != 0) {
            chosen[k++] = relevant[b];
          }
        }
        PreemptionPlan.Evict plan = checked(pod, node, lower, chosen);
        if (plan != null) {
          return plan;
        }
      }
      return new PreemptionPlan.Impossible(node, shortReason(pod, priority, lower.size()));
    }
    if (fitWithout(pod, node, lower, relevant).isEmpty()) {
      return new PreemptionPlan.Impossible(node, shortReason(pod, priority, lower.size()));
    }
    // reprieve: from all of them, keep each pod whose eviction is not needed, most valuable first
    Integer[] byValue = new Integer[r];
    for (int b = 0; b < r; b++) {
      byValue[b] = b;
    }
    Arrays.sort(
        byValue,
        (x, y) -> {
          PreemptionCandidate a = lower.get(relevant[x]);
          PreemptionCandidate c = lower.get(relevant[y]);
          int cmp = Boolean.compare(c.violatesDisruptionBudget(), a.violatesDisruptionBudget());
          if (cmp == 0) {
            cmp = Integer.compare(c.priority(), a.priority());
          }
          return cmp != 0 ? cmp : Long.compare(c.lostMilliGpuSeconds(), a.lostMilliGpuSeconds());
        });
    boolean[] evicted = new boolean[r];
    Arrays.fill(evicted, true);
    for (int b : byValue) {
      evicted[b] = false;
      if (fitWithout(pod, node, lower, members(relevant, evicted)).isEmpty()) {
        evicted[b] = true;
      }
    }
    PreemptionPlan.Evict plan = checked(pod, node, lower, members(relevant, evicted));
    if (plan == null) {
      throw new IllegalStateException("the reprieved set no longer fits");
    }
    return plan;
  }

  private static int[] members(int[] relevant, boolean[] in) {
    int k = 0;
    for (boolean b : in) {
      k += b ? 1 : 0;
    }
    int[] out = new int[k];
    k = 0;
    for (int b = 0; b < in.length; b++) {
      if (in[b]) {
        out[k++] = relevant[b];
      }
    }
    return out;
  }

  private static String shortReason(PodDemand pod, int priority, int candidates) {
    String who =
        candidates == 0
            ? "no pod on the node that holds a GPU has a priority below " + priority
            : "evicting every one of the "
                + candidates
                + " pod(s) of priority below "
                + priority
                + " does not make room";
    if (pod.containers().size() == 1) {
      GpuDemand d = pod.containers().get(0);
      if (d.isShare()) {
        return who + ": pods it may not evict leave no GPU with " + d.computeMilli() + "m free";
      }
      return who
          + ": pods it may not evict hold GPUs, so fewer than "
          + d.wholeGpus()
          + " the pod may use can be idle";
    }
    return who;
  }

  // ---------------------------------------------------------------- search

  /**
   * One node's search: what each candidate holds on each GPU, and the best set found so far. The
   * cost of a partial set never falls as victims are added (a victim adds to the count, or to the
   * budget violations), which is what lets the bounds cut.
   */
  private static final class NodeSearch {
    private @Nullable NodeUsage node;
    int n;
    int m;
    int[] violates = new int[32];
    int[] priority = new int[32];
    long[] lost = new long[32];

    /** Candidates' holdings by GPU: entries {@code gpuStart[p] .. gpuStart[p+1]-1}. */
    int[] gpuStart = new int[9];

    int[] entryCandidate = new int[32];
    int[] entryMilli = new int[32];
    long[] entryMemory = new long[32];

    // what each candidate holds, before grouping by GPU
    private int[] heldPosition = new int[32];
    private int[] heldCandidate = new int[32];
    private int[] heldMilli = new int[32];
    private long[] heldMemory = new long[32];
    private int[] fill = new int[8];

    boolean hasBest;
    int bestViolations;
    int bestCount;
    int bestHighest;
    long bestSum;
    long bestLost;
    int[] bestSet = new int[0];
    int steps;

    // per-GPU share search
    int[] stack = new int[0];
    int[] itemCandidate = new int[0];
    int[] itemMilli = new int[0];
    long[] itemMemory = new long[0];
    int[] nextClass = new int[0];
    long[] suffixMilli = new long[0];
    long[] suffixMemory = new long[0];

    /**
     * {@code topMilli[i * (items + 1) + t]}: the most compute {@code t} items from item {@code i}
     * on can free (the t largest); likewise {@code topMemory}. They bound how many more victims a
     * partial set needs.
     */
    long[] topMilli = new long[0];

    long[] topMemory = new long[0];

    /**
     * {@code lowPriority[i * (items + 1) + t]}: the t-th lowest priority among the items from
     * {@code i} on; {@code lowPrioritySum} the sum of the t lowest, {@code lowLostSum} of the t
     * least GPU times. They bound what a partial set that must take t more victims will cost.
     */
    long[] lowPriority = new long[0];

    long[] lowPrioritySum = new long[0];
    long[] lowLostSum = new long[0];
    private long[] sortedMilli = new long[0];
    private long[] sortedMemory = new long[0];
    private long[] sortedPriority = new long[0];
    private long[] sortedLost = new long[0];
    int items;
    long needMilli;
    long needMemory;

    // whole-GPU search
    long[] gpuMask = new long[0];
    int[] bitCandidate = new int[0];
    int busy;
    int wanted;

    /** The node being searched. */
    NodeUsage usage() {
      NodeUsage u = node;
      if (u == null) {
        throw new IllegalStateException("no node to search: reset first");
      }
      return u;
    }

    /** Starts a search of node {@code u} over {@code lower}: no best set yet. */
    void reset(NodeUsage u, List<PreemptionCandidate> lower) {
      node = u;
      n = u.size();
      m = lower.size();
      hasBest = false;
      bestSet = new int[0];
      steps = 0;
      if (violates.length < m) {
        violates = new int[m * 2];
        priority = new int[m * 2];
        lost = new long[m * 2];
      }
      int grants = 0;
      for (int j = 0; j < m; j++) {
        PreemptionCandidate c = lower.get(j);
        violates[j] = c.violatesDisruptionBudget() ? 1 : 0;
        priority[j] = c.priority();
        lost[j] = c.lostMilliGpuSeconds();
        for (ContainerGrant cg : c.allocation().containers()) {
          grants += cg.gpus().size();
        }
      }
      if (heldPosition.length < grants) {
        heldPosition = new int[grants * 2];
        heldCandidate = new int[grants * 2];
        heldMilli = new int[grants * 2];
        heldMemory = new long[grants * 2];
        entryCandidate = new int[grants * 2];
        entryMilli = new int[grants * 2];
        entryMemory = new long[grants * 2];
      }
      // one entry per candidate and GPU (a pod's containers on one GPU add up)
      int e = 0;
      for (int j = 0; j < m; j++) {
        int start = e;
        for (ContainerGrant cg : lower.get(j).allocation().containers()) {
          for (GpuGrant g : cg.gpus()) {
            int p = u.position(g.uuid());
            if (p < 0) {
              continue; // a GPU the node no longer lists: it frees nothing
            }
            int at = -1;
            for (int x = start; x < e; x++) {
              if (heldPosition[x] == p) {
                at = x;
                break;
              }
            }
            if (at < 0) {
              at = e++;
              heldPosition[at] = p;
              heldCandidate[at] = j;
              heldMilli[at] = 0;
              heldMemory[at] = 0;
            }
            heldMilli[at] += g.computeMilli();
            heldMemory[at] += g.memoryMib();
          }
        }
      }
      if (gpuStart.length < n + 1) {
        gpuStart = new int[n + 1];
        fill = new int[n];
      }
      Arrays.fill(gpuStart, 0, n + 1, 0);
      for (int x = 0; x < e; x++) {
        gpuStart[heldPosition[x] + 1]++;
      }
      for (int p = 0; p < n; p++) {
        gpuStart[p + 1] += gpuStart[p];
        fill[p] = gpuStart[p];
      }
      for (int x = 0; x < e; x++) {
        int at = fill[heldPosition[x]]++;
        entryCandidate[at] = heldCandidate[x];
        entryMilli[at] = heldMilli[x];
        entryMemory[at] = heldMemory[x];
      }
    }

    boolean found() {
      return hasBest;
    }

    /** True when the search stopped at {@link #STEP_LIMIT}: the best set found may not be best. */
    boolean truncated() {
      return steps > STEP_LIMIT;
    }

    /** The best set, candidate indices ascending. */
    int[] best() {
      int[] out = bestSet.clone();
      Arrays.sort(out);
      return out;
    }

    /** Holders of GPU {@code p} that are not candidates (higher priority, or not offered). */
    int fixedHolders(int p) {
      return usage().holderCount(p) - (gpuStart[p + 1] - gpuStart[p]);
    }

    /** Takes the set if it beats the best so far (ties keep the earlier). */
    void offer(
        int[] set, int size, int violations, int count, int highest, long sum, long lostSum) {
      if (hasBest && compareToBest(violations, count, highest, sum, lostSum) >= 0) {
        return;
      }
      hasBest = true;
      bestViolations = violations;
      bestCount = count;
      bestHighest = highest;
      bestSum = sum;
      bestLost = lostSum;
      bestSet = Arrays.copyOf(set, size);
    }

    int compareToBest(int violations, int count, int highest, long sum, long lostSum) {
      return VictimSetCost.compare(
          violations,
          count,
          highest,
          sum,
          lostSum,
          bestViolations,
          bestCount,
          bestHighest,
          bestSum,
          bestLost);
    }

    // ---------------------------------------------------------- a share on one GPU

    /**
     * Searches every GPU the share may use ({@code need[p] >= 0}: the memory it takes there);
     * returns true (the search is exact for a share).
     */
    boolean share(int computeMilli, long[] need) {
      NodeUsage usage = usage();
      for (int p = 0; p < n; p++) {
        if (need[p] < 0) {
          continue;
        }
        int held = gpuStart[p + 1] - gpuStart[p];
        if (usage.isExclusive(p)) {
          // held whole by one pod: evicting it leaves the GPU idle, and the share fits an idle GPU
          if (fixedHolders(p) == 0 && held == 1) {
            int j = entryCandidate[gpuStart[p]];
            offer(new int[] {j}, 1, violates[j], 1, priority[j], priority[j], lost[j]);
          }
          continue;
        }
        long milli = (long) usage.usedMilli(p) + computeMilli - usage.computeMilli(p);
        long memory = usage.usedMemoryMib(p) + need[p] - usage.memoryMib(p);
        if (milli <= 0 && memory <= 0) {
          offer(new int[0], 0, 0, 0, Integer.MIN_VALUE, 0, 0);
          return true; // fits already: nothing beats evicting nobody
        }
        searchGpu(p, milli, memory);
      }
      return true;
    }

    /** Branch and bound over the candidates on GPU {@code p} for sets that free enough there. */
    private void searchGpu(int p, long milli, long memory) {
      int from = gpuStart[p];
      int k = gpuStart[p + 1] - from;
      long totalMilli = 0;
      long totalMemory = 0;
      for (int x = from; x < from + k; x++) {
        totalMilli += entryMilli[x];
        totalMemory += entryMemory[x];
      }
      if (totalMilli < milli || totalMemory < memory) {
        return;
      }
      if (itemCandidate.length < k) {
        int size = Math.max(k, 8);
        itemCandidate = new int[size];
        itemMilli = new int[size];
        itemMemory = new long[size];
        nextClass = new int[size];
        suffixMilli = new long[size + 1];
        suffixMemory = new long[size + 1];
        topMilli = new long[(size + 1) * (size + 1)];
        topMemory = new long[(size + 1) * (size + 1)];
        lowPriority = new long[(size + 1) * (size + 1)];
        lowPrioritySum = new long[(size + 1) * (size + 1)];
        lowLostSum = new long[(size + 1) * (size + 1)];
        sortedMilli = new long[size];
        sortedMemory = new long[size];
        sortedPriority = new long[size];
        sortedLost = new long[size];
      }
      if (stack.length < k) {
        stack = new int[Math.max(k, 8)];
      }
      // order: no budget violation first, larger first, then cheaper (lower priority, less lost)
      for (int i = 0; i < k; i++) {
        int x = from + i;
        int at = i;
        while (at > 0 && before(x, at - 1)) {
          itemCandidate[at] = itemCandidate[at - 1];
          itemMilli[at] = itemMilli[at - 1];
          itemMemory[at] = itemMemory[at - 1];
          at--;
        }
        itemCandidate[at] = entryCandidate[x];
        itemMilli[at] = entryMilli[x];
        itemMemory[at] = entryMemory[x];
      }
      // candidates alike (same budget flag, same compute and memory here) are interchangeable,
      // and the cheaper of two alike is always the better victim: a set takes a prefix of them
      nextClass[k - 1] = k;
      for (int i = k - 2; i >= 0; i--) {
        nextClass[i] = alike(i, i + 1) ? nextClass[i + 1] : i + 1;
      }
      suffixMilli[k] = 0;
      suffixMemory[k] = 0;
      for (int i = k - 1; i >= 0; i--) {
        suffixMilli[i] = suffixMilli[i + 1] + itemMilli[i];
        suffixMemory[i] = suffixMemory[i + 1] + itemMemory[i];
      }
      // the items from i on, largest first, kept sorted as i moves back: O(k^2), k <= ~30
      int row = k + 1;
      topMilli[k * row] = 0;
      topMemory[k * row] = 0;
      for (int i = k - 1; i >= 0; i--) {
        int size = k - i;
        int j = itemCandidate[i];
        insertDescending(sortedMilli, size - 1, itemMilli[i]);
        insertDescending(sortedMemory, size - 1, itemMemory[i]);
        insertDescending(sortedPriority, size - 1, -(long) priority[j]);
        insertDescending(sortedLost, size - 1, -lost[j]);
        int at = i * row;
        topMilli[at] = 0;
        topMemory[at] = 0;
        lowPrioritySum[at] = 0;
        lowLostSum[at] = 0;
        for (int t = 1; t <= size; t++) {
          topMilli[at + t] = topMilli[at + t - 1] + sortedMilli[t - 1];
          topMemory[at + t] = topMemory[at + t - 1] + sortedMemory[t - 1];
          lowPriority[at + t] = -sortedPriority[t - 1];
          lowPrioritySum[at + t] = lowPrioritySum[at + t - 1] - sortedPriority[t - 1];
          lowLostSum[at + t] =
              VictimSetCost.saturatedAdd(lowLostSum[at + t - 1], -sortedLost[t - 1]);
        }
      }
      items = k;
      needMilli = milli;
      needMemory = memory;
      branch(0, 0, 0, 0, 0, Integer.MIN_VALUE, 0, 0);
    }

    /** True when entry {@code x} goes before the item at {@code i} in the search order. */
    private boolean before(int x, int i) {
      int a = entryCandidate[x];
      int b = itemCandidate[i];
      int c = Integer.compare(violates[a], violates[b]);
      if (c == 0) {
        c = Integer.compare(itemMilli[i], entryMilli[x]);
      }
      if (c == 0) {
        c = Long.compare(itemMemory[i], entryMemory[x]);
      }
      if (c == 0) {
        c = Integer.compare(priority[a], priority[b]);
      }
      if (c == 0) {
        c = Long.compare(lost[a], lost[b]);
      }
      return c < 0;
    }

    private boolean alike(int i, int j) {
      return violates[itemCandidate[i]] == violates[itemCandidate[j]]
          && itemMilli[i] == itemMilli[j]
          && itemMemory[i] == itemMemory[j];
    }

    private void branch(
        int i,
        long freedMilli,
        long freedMemory,
        int violations,
        int count,
        int highest,
        long sum,
        long lostSum) {
      if (freedMilli >= needMilli && freedMemory >= needMemory) {
        offer(stack, count, violations, count, highest, sum, lostSum);
        return;
      }
      if (i >= items || ++steps > STEP_LIMIT) {
        return;
      }
      if (freedMilli + suffixMilli[i] < needMilli || freedMemory + suffixMemory[i] < needMemory) {
        return;
      }
      if (hasBest) {
        // anything built on this set costs more than the set itself
        if (compareToBest(violations, count, highest, sum, lostSum) >= 0) {
          return;
        }
        if (violations == bestViolations) {
          // a completion has at least count + more victims: more than the best loses; exactly as
          // many ties on count, and then costs at least what the cheapest `more` items add
          int more = moreNeeded(i, freedMilli, freedMemory);
          if (count + more > bestCount) {
            return;
          }
          if (count + more == bestCount) {
            int at = i * (items + 1) + more;
            long atLeastHighest = Math.max(highest, lowPriority[at]);
            long atLeastSum = sum + lowPrioritySum[at];
            long atLeastLost = VictimSetCost.saturatedAdd(lostSum, lowLostSum[at]);
            int c = Long.compare(atLeastHighest, bestHighest);
            if (c == 0) {
              c = Long.compare(atLeastSum, bestSum);
            }
            if (c == 0) {
              c = Long.compare(atLeastLost, bestLost);
            }
            if (c >= 0) {
              return;
            }
          }
        }
      }
      int j = itemCandidate[i];
      stack[count] = j;
      branch(
          i + 1,
          freedMilli + itemMilli[i],
          freedMemory + itemMemory[i],
          violations + violates[j],
          count + 1,
          Math.max(highest, priority[j]),
          sum + priority[j],
          VictimSetCost.saturatedAdd(lostSum, lost[j]));
      // leave out item i, and so every later item alike
      branch(nextClass[i], freedMilli, freedMemory, violations, count, highest, sum, lostSum);
    }

    /** At least how many more items from {@code i} on it takes to free the rest. */
    private int moreNeeded(int i, long freedMilli, long freedMemory) {
      int row = items + 1;
      int size = items - i;
      int more = 0;
      long milli = needMilli - freedMilli;
      while (more < size && topMilli[i * row + more] < milli) {
        more++;
      }
      long memory = needMemory - freedMemory;
      while (more < size && topMemory[i * row + more] < memory) {
        more++;
      }
      return more;
    }

    /** Inserts {@code v} into {@code a[0..size)}, sorted largest first. */
    private static void insertDescending(long[] a, int size, long v) {
      int at = size;
      while (at > 0 && a[at - 1] < v) {
        a[at] = a[at - 1];
        at--;
      }
      a[at] = v;
    }

    // ---------------------------------------------------------- k whole GPUs

    /**
     * Chooses the cheapest GPUs to empty for {@code k} whole GPUs ({@code need[p] >= 0}: the pod
     * may use GPU p). Returns false when more than 64 candidates hold the GPUs in question (the
     * general search then decides).
     */
    boolean whole(int k, long[] need) {
      NodeUsage usage = usage();
      int idle = 0;
      int[] freeable = new int[n];
      int count = 0;
      for (int p = 0; p < n; p++) {
        if (need[p] < 0 || fixedHolders(p) > 0) {
          continue;
        }
        if (usage.holderCount(p) == 0) {
          idle++;
        } else {
          freeable[count++] = p;
        }
      }
      if (idle >= k) {
        offer(new int[0], 0, 0, 0, Integer.MIN_VALUE, 0, 0);
        return true;
      }
      wanted = k - idle;
      if (count < wanted) {
        return true;
      }
      // number the candidates holding these GPUs: one bit each
      int[] bitOf = new int[m];
      Arrays.fill(bitOf, -1);
      int bits = 0;
      bitCandidate = new int[Math.min(64, m)];
      long[] masks = new long[count];
      for (int b = 0; b < count; b++) {
        int p = freeable[b];
        for (int x = gpuStart[p]; x < gpuStart[p + 1]; x++) {
          int j = entryCandidate[x];
          if (bitOf[j] < 0) {
            if (bits == 64) {
              return false;
            }
            bitOf[j] = bits;
            bitCandidate[bits++] = j;
          }
          masks[b] |= 1L << bitOf[j];
        }
      }
      // cheapest GPUs first, so that a good set is found early and bounds the rest
      VictimSetCost[] alone = new VictimSetCost[count];
      Integer[] order = new Integer[count];
      for (int b = 0; b < count; b++) {
        alone[b] = costOf(masks[b]);
        order[b] = b;
      }
      Arrays.sort(order, (x, y) -> alone[x].compareTo(alone[y]));
      gpuMask = new long[count];
      for (int b = 0; b < count; b++) {
        gpuMask[b] = masks[order[b]];
      }
      busy = count;
      pick(0, 0, 0L, 0, 0, Integer.MIN_VALUE, 0, 0);
      return true;
    }

    private VictimSetCost costOf(long mask) {
      int violations = 0;
      int highest = Integer.MIN_VALUE;
      long sum = 0;
      long lostSum = 0;
      for (long rest = mask; rest != 0; rest &= rest - 1) {
        int j = bitCandidate[Long.numberOfTrailingZeros(rest)];
        violations += violates[j];
        highest = Math.max(highest, priority[j]);
        sum += priority[j];
        lostSum = VictimSetCost.saturatedAdd(lostSum, lost[j]);
      }
      return new VictimSetCost(violations, Long.bitCount(mask), highest, sum, lostSum);
    }

    private void pick(
        int b,
        int picked,
        long mask,
        int violations,
        int count,
        int highest,
        long sum,
        long lostSum) {
      if (hasBest && compareToBest(violations, count, highest, sum, lostSum) >= 0) {
        return; // more GPUs only add victims
      }
      if (picked == wanted) {
        int[] set = new int[count];
        int k = 0;
        for (long rest = mask; rest != 0; rest &= rest - 1) {
          set[k++] = bitCandidate[Long.numberOfTrailingZeros(rest)];
        }
        offer(set, k, violations, count, highest, sum, lostSum);
        return;
      }
      if (busy - b < wanted - picked || ++steps > STEP_LIMIT) {
        return;
      }
      long added = gpuMask[b] & ~mask;
      int v = violations;
      int h = highest;
      long s = sum;
      long l = lostSum;
      for (long rest = added; rest != 0; rest &= rest - 1) {
        int j = bitCandidate[Long.numberOfTrailingZeros(rest)];
        v += violates[j];
        h = Math.max(h, priority[j]);
        s += priority[j];
        l = VictimSetCost.saturatedAdd(l, lost[j]);
      }
      pick(b + 1, picked + 1, mask | added, v, count + Long.bitCount(added), h, s, l);
      pick(b + 1, picked, mask, violations, count, highest, sum, lostSum);
    }

    // ---------------------------------------------------------- general

    /**
     * The candidates (ascending) that hold a GPU some container of the pod may use; every candidate
     * when {@code everyone} (the pod is short of host CPU or memory, which any eviction frees).
     */
    int[] relevant(long[][] needs, boolean everyone) {
      boolean[] in = new boolean[m];
      for (int p = 0; p < n; p++) {
        boolean usable = everyone;
        for (long[] need : needs) {
          usable |= need[p] >= 0;
        }
        if (usable) {
          for (int x = gpuStart[p]; x < gpuStart[p + 1]; x++) {
            in[entryCandidate[x]] = true;
          }
        }
      }
      int k = 0;
      int[] out = new int[m];
      for (int j = 0; j < m; j++) {
        if (in[j] || everyone) {
          out[k++] = j;
        }
      }
      return Arrays.copyOf(out, k);
    }
  }
}
