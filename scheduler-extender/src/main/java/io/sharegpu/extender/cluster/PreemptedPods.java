package io.sharegpu.extender.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the GPU pods kube-scheduler evicted to make room for a pod of higher priority: pods that
 * gain the condition {@code DisruptionTarget} with reason {@code PreemptionByScheduler}, which
 * kube-scheduler adds to each victim before deleting it. Each pod is counted once, whether it is
 * seen terminating or only deleted. For {@code sharegpu_preemption_evicted_pods_total}.
 */
final class PreemptedPods {
  static final String CONDITION = "DisruptionTarget";
  static final String REASON = "PreemptionByScheduler";

  private final Set<String> counted = ConcurrentHashMap.newKeySet();
  private final AtomicLong evicted = new AtomicLong();

  void onPod(String uid, Pod pod) {
    if (preempted(pod) && counted.add(uid)) {
      evicted.incrementAndGet();
    }
  }

  /** The pod is gone; {@code holdsGpus}: it was a GPU pod the extender tracked. */
  void onDelete(String uid, Pod pod, boolean holdsGpus) {
    if (!counted.remove(uid) && holdsGpus && preempted(pod)) {
      evicted.incrementAndGet();
    }
  }

  long evicted() {
    return evicted.get();
  }

  static boolean preempted(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if (CONDITION.equals(c.getType())
          && "True".equals(c.getStatus())
          && REASON.equals(c.getReason())) {
        return true;
      }
    }
    return false;
  }
}
