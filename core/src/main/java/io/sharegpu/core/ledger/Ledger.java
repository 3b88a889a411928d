package io.sharegpu.core.ledger;

import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Who holds which GPU. The ledger keeps one {@link Allocation} per pod UID and, per node, the
 * compute and memory held on each GPU in arrays updated on every commit and release.
 *
 * <p>Invariant, checked on every {@link #commit}: on every GPU the sum of compute and of memory of
 * all allocations (reserved, bound or terminating) never exceeds its capacity, and a GPU held whole
 * is held by that allocation only. Health is not checked here: an unhealthy GPU keeps the pods it
 * has (a restart rebuilds the ledger from what pods hold), placement just sends no new pods there.
 *
 * <p>Not thread-safe: callers serialise access, or work on a {@link #copy()}.
 */
public final class Ledger {
  private final Map<String, NodeUsage> nodes;
  private final Map<String, Allocation> byUid;
  private final Map<String, Set<String>> uidsByNode;
  private final Map<String, long[]> hostByUid;
  private final StateClasses classes;
  private NodeTable table;
  private long version;
  private long nodesVersion;

  /** Creates an empty ledger. */
  public Ledger() {
    nodes = new LinkedHashMap<>();
    byUid = new LinkedHashMap<>();
    uidsByNode = new HashMap<>();
    hostByUid = new HashMap<>();
    classes = new StateClasses();
    table = new NodeTable(16);
  }

  private Ledger(Ledger o) {
    classes = new StateClasses(o.classes);
    nodes = new LinkedHashMap<>();
    for (Map.Entry<String, NodeUsage> e : o.nodes.entrySet()) {
      nodes.put(e.getKey(), e.getValue().copy(classes));
    }
    table = new NodeTable(nodes.size());
    for (Map.Entry<String, NodeUsage> e : nodes.entrySet()) {
      table.put(e.getKey(), e.getValue());
    }
    byUid = new LinkedHashMap<>(o.byUid);
    uidsByNode = new HashMap<>();
    for (Map.Entry<String, Set<String>> e : o.uidsByNode.entrySet()) {
      uidsByNode.put(e.getKey(), new LinkedHashSet<>(e.getValue()));
    }
    hostByUid = new HashMap<>(o.hostByUid);
    version = o.version;
    nodesVersion = o.nodesVersion;
  }

  /**
   * Adds a node or replaces it (new GPU list, health, host resources). Allocations on the node are
   * kept; they count on the GPUs that still exist.
   */
  public void putNode(GpuNode node) {
    NodeUsage usage = new NodeUsage(node, classes);
    Set<String> uids = uidsByNode.get(node.name());
    if (uids != null) {
      for (String uid : uids) {
        Allocation a = byUid.get(uid);
        if (a != null) {
          apply(usage, a, hostOf(uid), 1);
        }
      }
    }
    nodes.put(node.name(), usage);
    table.put(node.name(), usage);
    nodesVersion++;
    changed();
  }

  /**
   * Removes a node. Its allocations stay in the ledger (their pods may still exist) and count again
   * if the node comes back.
   */
  public void removeNode(String name) {
    if (nodes.remove(name) != null) {
      table.remove(name);
      nodesVersion++;
      changed();
    }
  }

  /** Returns the node with this name. */
  public Optional<GpuNode> node(String name) {
    NodeUsage u = nodes.get(name);
    return u == null ? Optional.empty() : Optional.of(u.node());
  }

  /** Returns every node, in the order they were first added. */
  public Collection<GpuNode> nodes() {
    List<GpuNode> out = new ArrayList<>(nodes.size());
    for (NodeUsage u : nodes.values()) {
      out.add(u.node());
    }
    return Collections.unmodifiableList(out);
  }

  /** Returns the names of every node, in the order they were first added (a live view). */
  public Set<String> nodeNames() {
    return Collections.unmodifiableSet(nodes.keySet());
  }

  /** Returns the live usage of a node's GPUs, or null when the node is unknown. */
  public @Nullable NodeUsage nodeUsage(String name) {
    int slot = table.find(name);
    return slot < 0 ? null : table.usage(slot);
  }

  /**
   * Returns the usage of a node's GPUs as it would be were the pods with these UIDs gone: a
   * detached copy, their GPU grants and host CPU and memory released, for "would the pod fit if
   * these pods were evicted" (preemption). The ledger itself does not change. UIDs that hold
   * nothing on the node are ignored. Empty when the node is unknown.
   */
  public Optional<NodeUsage> usageWithout(String node, Collection<String> podUids) {
    NodeUsage u = nodes.get(node);
    if (u == null) {
      return Optional.empty();
    }
    // its own state numbering: asking the copy's state must not add entries to this ledger's
    NodeUsage copy = u.copy(new StateClasses());
    Collection<String> distinct = podUids instanceof Set ? podUids : new HashSet<>(podUids);
    for (String uid : distinct) {
      Allocation a = byUid.get(uid);
      if (a != null && a.node().equals(node)) {
        apply(copy, a, hostOf(uid), -1);
      }
    }
    copy.changed();
    return Optional.of(copy);
  }

  /**
   * Returns a detached copy of {@code usage} with allocation {@code a} added (its GPU grants and
   * the given host CPU and memory), for "what would be left were this pod placed too". Nothing is
   * checked: the caller placed {@code a} on {@code usage} (with {@code Placement#choose}). Neither
   * {@code usage} nor any ledger changes.
   */
  public static NodeUsage usageWith(NodeUsage usage, Allocation a, long cpuMilli, long memoryMib) {
    NodeUsage copy = usage.copy(new StateClasses());
    long[] host = cpuMilli == 0 && memoryMib == 0 ? null : new long[] {cpuMilli, memoryMib};
    apply(copy, a, host, 1);
    copy.changed();
    return copy;
  }

  /**
   * Returns where the ledger keeps this node, for {@link #nodeUsage(int)} and {@link
   * #stateClass(int)}, or -1 when the node is unknown. Valid until the ledger next changes. The
   * fastest lookup: it reads a few arrays, not the node's objects.
   */
  public int nodeSlot(String name) {
    return table.find(name);
  }

  /** Returns the live usage of the node in this {@link #nodeSlot slot}. */
  public NodeUsage nodeUsage(int slot) {
    return table.usage(slot);
  }

  /**
   * Returns {@link NodeUsage#stateClass} of the node in this {@link #nodeSlot slot}, remembered
   * until the node changes (without reading the node's objects).
   */
  public int stateClass(int slot) {
    return table.stateClass(slot);
  }

  /**
   * Records an allocation that holds no host CPU or memory.
   *
   * @throws OverCommitException if a GPU would exceed its compute or memory, a whole GPU would be
   *     shared, the node or a GPU is unknown, or the pod UID already holds an allocation
   */
  public void commit(Allocation a) {
    commit(a, 0, 0);
  }

  /**
   * Records an allocation that also holds host CPU and memory (counted only on nodes that track
   * them).
   *
   * @throws OverCommitException as {@link #commit(Allocation)}, or if the node's host CPU or memory
   *     would be exceeded
   */
  public void commit(Allocation a, long cpuMilli, long memoryMib) {
    Allocation existing = byUid.get(a.podUid());
    if (existing != null) {
      throw new OverCommitException(
          "pod "
              + a.podKey()
              + " (uid "
              + a.podUid()
              + ") already holds GPUs on node "
              + existing.node()
              + "; release it first");
    }
    NodeUsage u = nodes.get(a.node());
    if (u == null) {
      throw new OverCommitException(
          "cannot place pod " + a.podKey() + ": node " + a.node() + " has no known GPUs");
    }
    int n = u.size();
    int[] addMilli = new int[n];
    long[] addMem = new long[n];
    boolean[] whole = new boolean[n];
    for (ContainerGrant c : a.containers()) {
      for (GpuGrant g : c.gpus()) {
        int p = u.position(g.uuid());
        if (p < 0) {
          throw new OverCommitException(
              "cannot place pod "
                  + a.podKey()
                  + ": GPU "
                  + g.uuid()
                  + " is not on node "
                  + a.node());
        }
        addMilli[p] += g.computeMilli();
        addMem[p] += g.memoryMib();
        whole[p] |= g.isWhole();
      }
    }
    for (int p = 0; p < n; p++) {
      if (addMilli[p] == 0) {
        continue;
      }
      Gpu gpu = u.gpu(p);
      String where = "GPU " + gpu.index() + " (" + gpu.uuid() + ") on node " + a.node();
      if (u.isExclusive(p)) {
        throw new OverCommitException(
            "cannot place pod "
                + a.podKey()
                + ": "
                + where
                + " is held whole by "
                + String.join(", ", u.holders.get(p)));
      }
      if (whole[p] && !u.holders.get(p).isEmpty()) {
        throw new OverCommitException(
            "cannot give pod "
                + a.podKey()
                + " the whole "
                + where
                + ": it is in use by "
                + String.join(", ", u.holders.get(p)));
      }
      if (u.usedMilli(p) + addMilli[p] > gpu.computeMilli()) {
        throw new OverCommitException(
            "cannot place pod "
                + a.podKey()
                + ": "
                + where
                + " would be over its compute: "
                + u.usedMilli(p)
                + "m held + "
                + addMilli[p]
                + "m asked > "
                + gpu.computeMilli()
                + "m");
      }
      if (u.usedMemoryMib(p) + addMem[p] > gpu.memoryMib()) {
        throw new OverCommitException(
            "cannot place pod "
                + a.podKey()
                + ": "
                + where
                + " would be over its memory: "
                + u.usedMemoryMib(p)
                + " MiB held + "
                + addMem[p]
                + " MiB asked > "
                + gpu.memoryMib()
                + " MiB");
      }
    }
    GpuNode node = u.node();
    if (node.cpuMilli() > 0 && cpuMilli > 0 && u.usedCpuMilli + cpuMilli > node.cpuMilli()) {
      throw new OverCommitException(
          "cannot place pod "
              + a.podKey()
              + ": node "
              + node.name()
              + " would be over its CPU: "
              + u.usedCpuMilli
              + "m held + "
              + cpuMilli
              + "m asked > "
              + node.cpuMilli()
              + "m");
    }
    if (node.memoryMib() > 0
        && memoryMib > 0
        && u.usedHostMemoryMib + memoryMib > node.memoryMib()) {
      throw new OverCommitException(
          "cannot place pod "
              + a.podKey()
              + ": node "
              + node.name()
              + " would be over its memory: "
              + u.usedHostMemoryMib
              + " MiB held + "
              + memoryMib
              + " MiB asked > "
              + node.memoryMib()
              + " MiB");
    }
    long[] host = cpuMilli == 0 && memoryMib == 0 ? null : new long[] {cpuMilli, memoryMib};
    apply(u, a, host, 1);
    table.changed(a.node());
    byUid.put(a.podUid(), a);
    uidsByNode.computeIfAbsent(a.node(), k -> new LinkedHashSet<>()).add(a.podUid());
    if (host != null) {
      hostByUid.put(a.podUid(), host);
    }
    changed();
  }

  /** Releases the allocation of this pod UID and returns it; empty when there is none. */
  public Optional<Allocation> release(String podUid) {
    Allocation a = byUid.remove(podUid);
    if (a == null) {
      return Optional.empty();
    }
    long[] host = hostByUid.remove(podUid);
    NodeUsage u = nodes.get(a.node());
    if (u != null) {
      apply(u, a, host, -1);
      table.changed(a.node());
    }
    Set<String> uids = uidsByNode.get(a.node());
    if (uids != null) {
      uids.remove(podUid);
      if (uids.isEmpty()) {
        uidsByNode.remove(a.node());
      }
    }
    changed();
    return Optional.of(a);
  }

  /** Returns the allocation of this pod UID. */
  public Optional<Allocation> allocation(String podUid) {
    return Optional.ofNullable(byUid.get(podUid));
  }

  /**
   * Changes the state of an allocation; it keeps its GPUs.
   *
   * @throws IllegalArgumentException if the pod UID holds no allocation
   */
  public void setState(String podUid, AllocationState state) {
    Allocation a = byUid.get(podUid);
    if (a == null) {
      throw new IllegalArgumentException("pod uid " + podUid + " holds no allocation");
    }
    byUid.put(podUid, a.withState(state));
    version++;
  }

  /** Returns every allocation, in commit order. */
  public Collection<Allocation> allocations() {
    return List.copyOf(byUid.values());
  }

  /** Returns the allocations on one node, in commit order. */
  public List<Allocation> allocations(String node) {
    Set<String> uids = uidsByNode.get(node);
    if (uids == null) {
      return List.of();
    }
    List<Allocation> out = new ArrayList<>(uids.size());
    for (String uid : uids) {
      Allocation a = byUid.get(uid);
      if (a != null) {
        out.add(a);
      }
    }
    return out;
  }

  /** Returns how many allocations {@link #allocations(String)} would list, without listing them. */
  public int allocationCount(String node) {
    Set<String> uids = uidsByNode.get(node);
    if (uids == null) {
      return 0;
    }
    int n = 0;
    for (String uid : uids) {
      if (byUid.containsKey(uid)) {
        n++;
      }
    }
    return n;
  }

  /** Returns one entry per GPU of the node, in index order; empty for an unknown node. */
  public List<GpuUsage> usage(String node) {
    NodeUsage u = nodes.get(node);
    return u == null ? List.of() : u.usage();
  }

  /** Returns an independent copy (a snapshot). */
  public Ledger copy() {
    return new Ledger(this);
  }

  /** Returns a number that changes whenever the ledger changes (for caches). */
  public long version() {
    return version;
  }

  /**
   * Returns a number that changes whenever a node is added, replaced or removed, but not when pods
   * are committed or released (for caches of the cluster's inventory).
   */
  public long nodesVersion() {
    return nodesVersion;
  }

  /**
   * Counts a change. The table behind {@link NodeUsage#stateClass} is trimmed here, never while
   * callers read, so that the numbers they hold stay valid until the ledger next changes.
   */
  private void changed() {
    version++;
    if (classes.trim(2 * nodes.size() + 64)) {
      table.renumbered();
    }
  }

  private long @Nullable [] hostOf(String uid) {
    return hostByUid.get(uid);
  }

  private static void apply(NodeUsage u, Allocation a, long @Nullable [] host, int sign) {
    int n = u.size();
    boolean[] touched = new boolean[n];
    for (ContainerGrant c : a.containers()) {
      for (GpuGrant g : c.gpus()) {
        int p = u.position(g.uuid());
        if (p < 0) {
          continue;
        }
        int base = p * NodeUsage.STRIDE;
        u.cells[base + NodeUsage.USED_MILLI] += sign * g.computeMilli();
        u.cells[base + NodeUsage.USED_MEM] += sign * g.memoryMib();
        if (g.isWhole()) {
          u.cells[base + NodeUsage.WHOLE] += sign;
        }
        if (!touched[p]) {
          touched[p] = true;
          u.cells[base + NodeUsage.HOLDERS] += sign;
          if (sign > 0) {
            u.holders.get(p).add(a.podKey());
          } else {
            u.holders.get(p).remove(a.podKey());
          }
        }
      }
    }
    if (host != null && u.node().cpuMilli() > 0) {
      u.usedCpuMilli += sign * host[0];
    }
    if (host != null && u.node().memoryMib() > 0) {
      u.usedHostMemoryMib += sign * host[1];
    }
    u.changed();
  }
}
