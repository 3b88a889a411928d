package io.sharegpu.core.placement;

import io.sharegpu.core.request.PodDemand;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Placement} remembers for one pod and one ledger version, so that the prioritize and
 * choose that follow a filter do not repeat its work: outcomes by node name, outcomes by node state
 * class, reason lines by the shape of the failure, and the last filter's feasible nodes with their
 * scores. Everything is forgotten when another pod comes or the ledger changes ({@link #begin}).
 * Also hands out stamps that mark node slots seen within one call (a name asked twice is answered
 * once). Not thread-safe.
 */
final class RequestCache {
  private @Nullable PodDemand pod;
  private long version = -1;
  private int stamp;

  private final Map<String, Outcome> byName = new HashMap<>();
  private final Map<Long, String> reasons = new HashMap<>();
  private ClassEntry[] byClass = new ClassEntry[64];

  private String[] lastFeasible = new String[0];
  private double[] lastScore = new double[0];
  private int lastFeasibleCount;
  private int lastFeasibleStamp = -1;

  private int[] seenAt = new int[64];
  private int seenStamp;

  /** Starts a call for {@code pod} on ledger {@code version}: forgets all if either changed. */
  void begin(PodDemand pod, long version) {
    if (version != this.version || (this.pod != pod && !pod.equals(this.pod))) {
      byName.clear();
      reasons.clear();
      this.pod = pod;
      this.version = version;
      stamp++;
    }
  }

  /** The remembered outcome on node {@code name}, or null. */
  @Nullable Outcome outcome(String name) {
    return byName.get(name);
  }

  void putOutcome(String name, Outcome o) {
    byName.put(name, o);
  }

  /** Reason lines by failure shape (see {@link RejectionWords#summary}). */
  Map<Long, String> reasons() {
    return reasons;
  }

  /** The entry of state class {@code id} if it was filled for this pod and version, else null. */
  @Nullable ClassEntry classEntry(int id) {
    ClassEntry c = id < byClass.length ? byClass[id] : null;
    return c != null && c.stamp == stamp ? c : null;
  }

  /** The entry of state class {@code id}, made current for this pod and version (to be filled). */
  ClassEntry freshClassEntry(int id) {
    if (id >= byClass.length) {
      byClass = Arrays.copyOf(byClass, Math.max(id + 1, byClass.length * 2));
    }
    ClassEntry c = byClass[id];
    if (c == null) {
      c = new ClassEntry();
      byClass[id] = c;
    }
    c.stamp = stamp;
    c.reason = null;
    return c;
  }

  // ------------------------------------------------------------ the last filter's feasible nodes

  /** Makes room for a filter over {@code n} names and forgets the last one. */
  void startFeasible(int n) {
    if (lastFeasible.length < n) {
      lastFeasible = new String[n];
      lastScore = new double[n];
    }
    lastFeasibleStamp = -1;
  }

  /** Records the score of the {@code k}-th feasible node of the filter under way. */
  void feasibleScore(int k, double score) {
    lastScore[k] = score;
  }

  /** Ends the filter: its first {@code k} names of {@code feasible} are the feasible nodes. */
  void endFeasible(String[] feasible, int k) {
    System.arraycopy(feasible, 0, lastFeasible, 0, k);
    lastFeasibleCount = k;
    lastFeasibleStamp = stamp;
  }

  /**
   * True when the last filter, for this pod and version, found exactly {@code n} feasible nodes.
   */
  boolean lastFilterFound(int n) {
    return lastFeasibleStamp == stamp && n == lastFeasibleCount;
  }

  /** The {@code k}-th feasible node of the last filter. */
  String lastFeasible(int k) {
    return lastFeasible[k];
  }

  /** Its score. */
  double lastScore(int k) {
    return lastScore[k];
  }

  // ------------------------------------------------------------ seen within one call

  /** A fresh stamp for {@link #firstSight}. */
  int nextSeenStamp() {
    if (++seenStamp == Integer.MAX_VALUE) {
      Arrays.fill(seenAt, 0);
      seenStamp = 1;
    }
    return seenStamp;
  }

  /** True the first time {@code slot} is met under {@code seen}; a slot below 0 is never marked. */
  boolean firstSight(int slot, int seen) {
    if (slot < 0) {
      return true;
    }
    if (slot >= seenAt.length) {
      seenAt = Arrays.copyOf(seenAt, Math.max(slot + 1, seenAt.length * 2));
    }
    if (seenAt[slot] == seen) {
      return false;
    }
    seenAt[slot] = seen;
    return true;
  }

  /**
   * One node state's outcome for the current pod and ledger version, with where it failed (for the
   * words) and its reason line once made. {@code orderFree} false: the GPU choice depends on the
   * GPUs' order, evaluate each node of the class itself.
   */
  static final class ClassEntry {
    int stamp;
    boolean orderFree;
    Outcome outcome = Outcome.NO_FIT;
    @Nullable String reason;
    Refusal refusal = Refusal.NONE;
    int container;
    int available;

    /** Copies where it failed into {@code f}. */
    void failureInto(Failure f) {
      f.set(refusal, container, available);
    }
  }
}
