package io.sharegpu.extender.scheduling;

import io.sharegpu.core.preemption.NominationGuard.Nominee;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The GPU pods kube-scheduler nominated to a node after preempting for them ({@code
 * status.nominatedNodeName} set, not bound yet), by node. Filter holds their room for them ({@link
 * io.sharegpu.core.preemption.NominationGuard}). The informer feed records and forgets them (a pod
 * leaves when it is bound, deleted, finished or loses its nomination); any thread reads.
 */
public final class Nominations {

  private final Map<String, Map<String, Nominee>> byNode = new ConcurrentHashMap<>();
  private final Map<String, String> nodeOf = new ConcurrentHashMap<>();

  /**
   * Records that the pod with {@code uid} is nominated to {@code node}; returns true when it was
   * nominated to another node before (room it held there may be free for others now).
   */
  public synchronized boolean nominate(String uid, String node, Nominee nominee) {
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
}
