package io.sharegpu.extender.status;

import io.sharegpu.api.gpunode.GpuNodeAllocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import org.jspecify.annotations.Nullable;

/**
 * What is allocated on one node, as {@code status.allocation} of its GPUNode shows it.
 *
 * <p>Example: a node of 2 H100s, a 250m share of 20389 MiB on GPU 0 and GPU 1 cordoned → {@code
 * freeGpus 1, allocatedMilli 250, allocatedMemoryMiB 20389, pods 1, cordonedGpus 1}.
 *
 * @param freeGpus GPUs and MIG instances (not MIG-enabled parents) that nothing holds
 * @param allocatedMilli compute held, thousandths of a GPU
 * @param allocatedMemoryMiB GPU memory held, MiB
 * @param pods allocations on the node (reserved, bound, running or terminating)
 * @param cordonedGpus GPUs and MIG instances an operator cordoned
 */
record AllocationSummary(
    int freeGpus, long allocatedMilli, long allocatedMemoryMiB, int pods, int cordonedGpus) {

  /** Returns the summary of {@code node} in {@code ledger}. */
  static AllocationSummary of(Ledger ledger, String node, NodeUsage u) {
    int free = 0;
    int cordoned = 0;
    long milli = 0;
    long memory = 0;
    for (int i = 0, n = u.size(); i < n; i++) {
      if (u.isCordoned(i)) {
        cordoned++;
      }
      if (u.isMigParent(i)) {
        continue;
      }
      if (u.holderCount(i) == 0) {
        free++;
      }
      milli += u.usedMilli(i);
      memory += u.usedMemoryMib(i);
    }
    return new AllocationSummary(free, milli, memory, ledger.allocationCount(node), cordoned);
  }

  /** Returns the summary a GPUNode shows, or null when it shows none. */
  static @Nullable AllocationSummary of(@Nullable GpuNodeAllocation a) {
    if (a == null) {
      return null;
    }
    return new AllocationSummary(
        a.getFreeGpus(),
        a.getAllocatedMilli(),
        a.getAllocatedMemoryMiB(),
        a.getPods(),
        a.getCordonedGpus());
  }

  /** Returns the JSON merge patch of the status subresource that writes this summary. */
  String mergePatch() {
    return "{\"status\":{\"allocation\":{\"freeGpus\":"
        + freeGpus
        + ",\"allocatedMilli\":"
        + allocatedMilli
        + ",\"allocatedMemoryMiB\":"
        + allocatedMemoryMiB
        + ",\"pods\":"
        + pods
        + ",\"cordonedGpus\":"
        + cordonedGpus
        + "}}}";
  }
}
