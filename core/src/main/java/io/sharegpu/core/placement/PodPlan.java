package io.sharegpu.core.placement;

import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.Arrays;
import java.util.List;

/**
 * A pod ready for evaluation: its {@link FitRules}, its containers in placement order (whole GPUs
 * first, as they need idle GPUs, then shares from largest to smallest; equal ones in the pod's
 * order), and whether nodes alike in state may share one answer ({@link StateScored} policy, one
 * container, no pins or excludes).
 */
final class PodPlan {
  final PodDemand pod;
  final FitRules rules;
  final int[] order;
  final boolean byClass;

  PodPlan(PodDemand pod, boolean stateScored) {
    this.pod = pod;
    this.rules = new FitRules(pod);
    this.byClass = stateScored && !rules.namesGpus() && pod.containers().size() == 1;
    List<GpuDemand> cs = pod.containers();
    Integer[] idx = new Integer[cs.size()];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = i;
    }
    if (idx.length > 1) {
      Arrays.sort(
          idx, (a, b) -> Integer.compare(cs.get(b).computeMilli(), cs.get(a).computeMilli()));
    }
    order = new int[idx.length];
    for (int i = 0; i < idx.length; i++) {
      order[i] = idx[i];
    }
  }
}
