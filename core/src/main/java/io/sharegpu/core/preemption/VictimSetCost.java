package io.sharegpu.core.preemption;

import java.util.Collection;

/**
 * What evicting a set of pods costs, compared in this order (lower is better): PodDisruptionBudget
 * violations (kube-scheduler's first criterion), then the number of victims, then the highest
 * priority among them, then the sum of their priorities, then the GPU work lost.
 *
 * <p>Example: {one pod of priority 10} beats {two pods of priority 0} (fewer victims); {a pod of
 * priority 5} beats {a pod of priority 10}; {a 2-hour-old notebook} loses to {a 1-minute-old one}
 * when both have the same priority. Any pod whose eviction violates a budget makes the set lose to
 * every set that violates none, however many pods that set evicts.
 *
 * @param budgetViolations victims whose eviction violates a PodDisruptionBudget
 * @param victims the number of victims
 * @param highestPriority the highest priority among the victims; {@link Integer#MIN_VALUE} when
 *     there are none
 * @param prioritySum the sum of the victims' priorities
 * @param lostMilliGpuSeconds the GPU work lost, summed (saturates at {@link Long#MAX_VALUE})
 */
public record VictimSetCost(
    int budgetViolations,
    int victims,
    int highestPriority,
    long prioritySum,
    long lostMilliGpuSeconds)
    implements Comparable<VictimSetCost> {

  /** The cost of evicting nobody. */
  public static final VictimSetCost NONE = new VictimSetCost(0, 0, Integer.MIN_VALUE, 0, 0);

  public VictimSetCost {
    if (victims < 0 || budgetViolations < 0 || budgetViolations > victims) {
      throw new IllegalArgumentException(
          "victim set cost: need 0 <= budgetViolations <= victims, got "
              + budgetViolations
              + " and "
              + victims);
    }
    if (lostMilliGpuSeconds < 0) {
      throw new IllegalArgumentException(
          "victim set cost: lostMilliGpuSeconds must be >= 0, got " + lostMilliGpuSeconds);
    }
  }

  /** Returns the cost of evicting exactly these candidates. */
  public static VictimSetCost of(Collection<PreemptionCandidate> victims) {
    int violations = 0;
    int highest = Integer.MIN_VALUE;
    long sum = 0;
    long lost = 0;
    for (PreemptionCandidate v : victims) {
      if (v.violatesDisruptionBudget()) {
        violations++;
      }
      highest = Math.max(highest, v.priority());
      sum += v.priority();
      lost = saturatedAdd(lost, v.lostMilliGpuSeconds());
    }
    return new VictimSetCost(violations, victims.size(), highest, sum, lost);
  }

  @Override
  public int compareTo(VictimSetCost o) {
    return compare(
        budgetViolations,
        victims,
        highestPriority,
        prioritySum,
        lostMilliGpuSeconds,
        o.budgetViolations,
        o.victims,
        o.highestPriority,
        o.prioritySum,
        o.lostMilliGpuSeconds);
  }

  /** The order of {@link #compareTo}, on plain numbers (the search keeps no objects). */
  static int compare(
      int violations,
      int count,
      int highest,
      long sum,
      long lost,
      int otherViolations,
      int otherCount,
      int otherHighest,
      long otherSum,
      long otherLost) {
    int c = Integer.compare(violations, otherViolations);
    if (c == 0) {
      c = Integer.compare(count, otherCount);
    }
    if (c == 0) {
      c = Integer.compare(highest, otherHighest);
    }
    if (c == 0) {
      c = Long.compare(sum, otherSum);
    }
    return c != 0 ? c : Long.compare(lost, otherLost);
  }

  static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }
}
