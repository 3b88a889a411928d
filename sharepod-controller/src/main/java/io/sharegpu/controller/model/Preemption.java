package io.sharegpu.controller.model;

import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler preempted a SharePod's pod: it deleted the pod to make room for a pod of higher
 * priority.
 *
 * @param pod the preempted pod's name
 * @param preemptor the pod it made room for, as {@code namespace/name} (or {@code with UID u} when
 *     the scheduler's Event names no object); null when no Event was seen
 * @param node the node the pod was preempted on; null when unknown
 * @param detail the message of the pod's DisruptionTarget condition, said when the preemptor is
 *     unknown; null when none
 */
public record Preemption(
    String pod, @Nullable String preemptor, @Nullable String node, @Nullable String detail) {

  /** Returns true when the preemptor is known. */
  public boolean named() {
    return preemptor != null;
  }

  /**
   * Returns the preemption in words, e.g. {@code pod notebook was preempted by higher-priority pod
   * team-b/train on node gpu-1}, or without the Event {@code pod notebook was preempted by a
   * higher-priority pod on node gpu-1 (sharegpu-scheduler: preempting to accommodate a higher
   * priority pod)}.
   */
  public String message() {
    StringBuilder m = new StringBuilder("pod ").append(pod).append(" was preempted by ");
    m.append(preemptor == null ? "a higher-priority pod" : "higher-priority pod " + preemptor);
    if (node != null) {
      m.append(" on node ").append(node);
    }
    if (preemptor == null && detail != null && !detail.isEmpty()) {
      m.append(" (").append(detail).append(')');
    }
    return m.toString();
  }
}
