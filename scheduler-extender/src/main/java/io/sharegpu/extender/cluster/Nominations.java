package io.sharegpu.extender.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.preemption.NominationGuard.Nominee;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The GPU pods kube-scheduler nominated to a node after preempting for them ({@code
 * status.nominatedNodeName} set, not bound yet), by node, from the pod informer. Filter holds their
 * room for them ({@link io.sharegpu.core.preemption.NominationGuard}). A pod leaves when it is
 * bound, deleted, finished or loses its nomination. Written by the informer thread, read by any.
 */
public final class Nominations {

  private final Map<String, Map<String, Nominee>> byNode = new ConcurrentHashMap<>();
  private final Map<String, String> nodeOf = new ConcurrentHashMap<>();

  /**
   * Records what {@code pod} says about its nomination; returns true when a nomination went away
   * (room it held may be free for others now).
   */
  public synchronized boolean onPod(Pod pod) {
    String uid = pod.getMetadata() == null ? null : pod.getMetadata().getUid();
    if (uid == null) {
      return false;
    }
    String node = nominatedNode(pod);
    if (node == null) {
      return forget(uid);
    }
    if (!(PodGpuRequestParser.parse(pod) instanceof ParsedRequest.Valid valid)) {
      return forget(uid);
    }
    Nominee nominee;
    try {
      nominee =
          new Nominee(
              DemandMapper.toDemand(DemandMapper.podKey(pod), uid, valid.request()),
              pod.getSpec().getPriority() == null ? 0 : pod.getSpec().getPriority());
    } catch (IllegalArgumentException e) {
      return forget(uid);
    }
    String before = nodeOf.put(uid, node);
    boolean moved = before != null && !before.equals(node) && remove(before, uid);
    byNode.computeIfAbsent(node, k -> new ConcurrentHashMap<>()).put(uid, nominee);
    return moved;
  }

  /** Forgets the pod with this UID; returns true when it was nominated. */
  public synchronized boolean forget(String uid) {
    String node = nodeOf.remove(uid);
    return node != null && remove(node, uid);
  }

  /** The pods nominated to {@code node}; empty when none. */
  public List<Nominee> on(String node) {
    Map<String, Nominee> m = byNode.get(node);
    return m == null ? List.of() : List.copyOf(m.values());
  }

  /** True when no pod is nominated anywhere (filter's fast path). */
  public boolean isEmpty() {
    return nodeOf.isEmpty();
  }

  /** How many pods are nominated. */
  public int size() {
    return nodeOf.size();
  }

  private boolean remove(String node, String uid) {
    Map<String, Nominee> m = byNode.get(node);
    if (m == null || m.remove(uid) == null) {
      return false;
    }
    if (m.isEmpty()) {
      byNode.remove(node, m);
    }
    return true;
  }

  private static @Nullable String nominatedNode(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null || pod.getSpec() == null) {
      return null;
    }
    String bound = pod.getSpec().getNodeName();
    if (bound != null && !bound.isEmpty()) {
      return null;
    }
    if (pod.getStatus() == null) {
      return null;
    }
    String phase = pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return null;
    }
    String node = pod.getStatus().getNominatedNodeName();
    return node == null || node.isEmpty() ? null : node;
  }
}
