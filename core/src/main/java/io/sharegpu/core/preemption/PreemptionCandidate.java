package io.sharegpu.core.preemption;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import java.time.Duration;
import java.time.Instant;

/**
 * A pod that preemption may evict from a node, with what evicting it would cost.
 *
 * @param allocation the GPUs the pod holds on the node, exactly as the ledger has them
 * @param priority the pod's priority ({@code spec.priority}); only pods of strictly lower priority
 *     than the preemptor are ever evicted
 * @param violatesDisruptionBudget true when evicting the pod would violate a PodDisruptionBudget
 *     (its budget allows no more disruptions), as kube-scheduler decides it for its candidates
 * @param lostMilliGpuSeconds the GPU work lost if the pod is evicted, in thousandths of a GPU times
 *     seconds (see {@link #of(Allocation, int, boolean, Instant, Instant)}); 0 when unknown
 */
public record PreemptionCandidate(
    Allocation allocation,
    int priority,
    boolean violatesDisruptionBudget,
    long lostMilliGpuSeconds) {

  public PreemptionCandidate {
    if (lostMilliGpuSeconds < 0) {
      throw new IllegalArgumentException(
          "candidate "
              + allocation.podKey()
              + ": lostMilliGpuSeconds must be >= 0, got "
              + lostMilliGpuSeconds);
    }
  }

  /**
   * Returns a candidate whose lost GPU time is the compute it holds times how long it has run.
   *
   * <p>Example: a 250m share started two hours before {@code now} loses 250 x 7200 = 1,800,000
   * milli-GPU-seconds; two whole GPUs for one minute lose 2000 x 60 = 120,000. A start time after
   * {@code now} counts as zero.
   */
  public static PreemptionCandidate of(
      Allocation allocation,
      int priority,
      boolean violatesDisruptionBudget,
      Instant startTime,
      Instant now) {
    long seconds = Math.max(0, Duration.between(startTime, now).getSeconds());
    long milli = 0;
    for (ContainerGrant c : allocation.containers()) {
      for (GpuGrant g : c.gpus()) {
        milli += g.computeMilli();
      }
    }
    long lost;
    try {
      lost = Math.multiplyExact(seconds, milli);
    } catch (ArithmeticException e) {
      lost = Long.MAX_VALUE;
    }
    return new PreemptionCandidate(allocation, priority, violatesDisruptionBudget, lost);
  }

  /** Returns the pod's UID. */
  public String podUid() {
    return allocation.podUid();
  }

  /** Returns the pod's {@code namespace/name}. */
  public String podKey() {
    return allocation.podKey();
  }
}
