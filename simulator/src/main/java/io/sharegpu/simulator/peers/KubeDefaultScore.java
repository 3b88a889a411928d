package io.sharegpu.simulator.peers;

import io.sharegpu.core.placement.NodeView;
import java.util.HashMap;
import java.util.Map;

/**
 * kube-scheduler's default node score for what the pod asks of the host: {@code NodeResourcesFit}
 * with the {@code LeastAllocated} strategy over CPU and memory (weights 1 and 1) plus {@code
 * NodeResourcesBalancedAllocation} over CPU and memory, each an integer 0..100 and weighted 1 in
 * the default profile. The other default score plugins (image locality, affinities, taints,
 * topology spread) give every node of the trace the same score and are left out.
 *
 * <p>Both plugins count what is requested on the node, the pod included, against the node's
 * allocatable. The replay takes the host CPU and memory of pods without GPUs off the node's
 * capacity instead of counting them as requested, so this remembers each node's first (largest)
 * capacity by name and counts the difference as requested.
 *
 * <p>Example: a node of 96 cores and 384 GiB with 24 cores and 96 GiB requested, pod 8 cores and 32
 * GiB: LeastAllocated = ((96-32)·100/96 + (384-128)·100/384) / 2 = (66 + 66) / 2 = 66;
 * BalancedAllocation = (1 - |0.333 - 0.333| / 2) · 100 = 100; the node scores 166.
 */
final class KubeDefaultScore {
  private static final long MAX_NODE_SCORE = 100;

  private final Map<String, long[]> capacity = new HashMap<>();

  /** The node's default score for a pod asking this much host CPU and memory (0..200). */
  long score(NodeView view, long cpuMilli, long memoryMib) {
    long[] cap =
        capacity.computeIfAbsent(
            view.node().name(), n -> new long[] {view.node().cpuMilli(), view.node().memoryMib()});
    cap[0] = Math.max(cap[0], view.node().cpuMilli());
    cap[1] = Math.max(cap[1], view.node().memoryMib());
    long cpuRequested = cap[0] - view.freeCpuMilli() + cpuMilli;
    long memRequested = cap[1] - view.freeMemoryMib() + memoryMib;
    long least = (leastRequested(cpuRequested, cap[0]) + leastRequested(memRequested, cap[1])) / 2;
    return least + balanced(cpuRequested, cap[0], memRequested, cap[1]);
  }

  /** {@code LeastAllocated}'s per-resource score: free after the pod ÷ allocatable, 0..100. */
  static long leastRequested(long requested, long capacity) {
    if (capacity == 0 || requested > capacity) {
      return 0;
    }
    return (capacity - requested) * MAX_NODE_SCORE / capacity;
  }

  /**
   * {@code BalancedAllocation}: 100 × (1 − the standard deviation of the requested fractions of CPU
   * and memory), fractions capped at 1; for two resources the deviation is half their difference.
   */
  static long balanced(long cpuRequested, long cpuCapacity, long memRequested, long memCapacity) {
    if (cpuCapacity == 0 || memCapacity == 0) {
      return 0;
    }
    double cpu = Math.min(1, (double) cpuRequested / cpuCapacity);
    double mem = Math.min(1, (double) memRequested / memCapacity);
    double std = Math.abs(cpu - mem) / 2;
    return (long) ((1 - std) * MAX_NODE_SCORE);
  }
}
