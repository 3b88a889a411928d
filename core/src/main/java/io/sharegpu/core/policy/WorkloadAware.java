package io.sharegpu.core.policy;

import java.util.List;

/**
 * A policy that is told the workload in advance (offline), as FGD is in its paper: the shapes of
 * all pods the run will see.
 */
public interface WorkloadAware {

  /** Fits the policy's workload model on these pod shapes (one entry per pod). */
  void prime(List<PodShape> pods);
}
