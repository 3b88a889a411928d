package io.sharegpu.core.preemption;

import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Tells, for a pod that the filter rejects on a node, whether evicting pods could make room ({@link
 * Shortfall.Resolvable}) or whether the node can never take it ({@link Shortfall.Unresolvable}): no
 * GPU of an allowed model, pinned GPUs absent or cordoned, a share larger than any GPU it may use
 * (compute or memory), more whole GPUs than the node has that the pod may use, more host CPU or
 * memory than the node has. The extender reports the first kind in {@code FailedNodes} and the
 * second in {@code FailedAndUnresolvableNodes}.
 *
 * <p>For a pod of one container the answer is exact: resolvable exactly when the pod would fit the
 * node with every pod evicted, decided with the filter's per-GPU rules ({@link
 * Placement#memoryOnIdleGpus}) in well under a microsecond. For a pod of several containers it errs
 * towards resolvable: unresolvable only when one container alone, or the whole GPUs of all of them
 * together, could never fit. The filter places containers one by one, so such a pod can fail on an
 * idle node and fit a busier one; calling the node unresolvable would then hide it from preemption,
 * while calling it resolvable costs at worst a preempt call that drops the node. Priorities are not
 * considered here: kube-scheduler's preemption evicts only lower priorities and finds no victims
 * when there are none.
 */
public final class ShortfallClassifier {
  private final Ledger ledger;

  /** Classifies on {@code ledger} (read, never changed). */
  public ShortfallClassifier(Ledger ledger) {
    this.ledger = ledger;
  }

  /**
   * Returns whether the pod's shortfall on {@code node} is resolvable by preemption. Meant for
   * nodes the filter rejected: a pod that fits is reported resolvable (it needs no eviction).
   */
  public Shortfall classify(PodDemand pod, String node) {
    NodeUsage u = ledger.nodeUsage(node);
    if (u == null) {
      return new Shortfall.Unresolvable(
          "no GPUNode for this node: its GPUs are not known (is the node agent running there?)");
    }
    String reason = unresolvable(pod, u, needs(pod, u));
    if (reason != null) {
      return new Shortfall.Unresolvable(reason);
    }
    return new Shortfall.Resolvable(RESOLVABLE);
  }

  /** The reason given for every resolvable shortfall. */
  static final String RESOLVABLE =
      "other pods hold the GPU capacity the pod needs; evicting some could make room";

  /** Per container, {@link Placement#memoryOnIdleGpus}. */
  static long[][] needs(PodDemand pod, NodeUsage u) {
    long[][] out = new long[pod.containers().size()][];
    for (int c = 0; c < out.length; c++) {
      out[c] = Placement.memoryOnIdleGpus(pod, c, u);
    }
    return out;
  }

  /**
   * Why no eviction can ever let a container of the pod fit the node on its own (or the pod's host
   * demand), or null when each container could fit were the node idle.
   */
  static @Nullable String unresolvable(PodDemand pod, NodeUsage u, long[][] needs) {
    GpuNode node = u.node();
    if (node.cpuMilli() > 0 && pod.cpuMilli() > node.cpuMilli()) {
      return "asks for " + pod.cpuMilli() + "m host CPU; the node has " + node.cpuMilli() + "m";
    }
    if (node.memoryMib() > 0 && pod.memoryMib() > node.memoryMib()) {
      return "asks for "
          + pod.memoryMib()
          + " MiB host memory; the node has "
          + node.memoryMib()
          + " MiB";
    }
    int wholeUsable = 0;
    int wholeAsked = 0;
    boolean[] usableWhole = new boolean[u.size()];
    for (int c = 0; c < needs.length; c++) {
      GpuDemand d = pod.containers().get(c);
      String prefix = needs.length > 1 ? "container " + d.container() + ": " : "";
      int usable = 0;
      for (int i = 0; i < needs[c].length; i++) {
        if (needs[c][i] >= 0) {
          usable++;
          if (!d.isShare() && !usableWhole[i]) {
            usableWhole[i] = true;
            wholeUsable++;
          }
        }
      }
      if (d.isShare() && usable == 0) {
        String mem = d.memoryMib() > 0 ? " with " + d.memoryMib() + " MiB" : "";
        return prefix
            + "no GPU on the node can take a share of "
            + d.computeMilli()
            + "m"
            + mem
            + ", even idle"
            + constraints(pod, u);
      }
      if (!d.isShare()) {
        int k = d.wholeGpus();
        wholeAsked += k;
        if (usable < k) {
          return prefix
              + "needs "
              + k
              + (k == 1 ? " whole GPU" : " whole GPUs")
              + (d.memoryMib() > 0 ? " with " + d.memoryMib() + " MiB" : "")
              + "; the node has "
              + usable
              + " the pod may use"
              + constraints(pod, u);
        }
      }
    }
    if (wholeAsked > wholeUsable) {
      return "needs "
          + wholeAsked
          + " whole GPUs over its containers; the node has "
          + wholeUsable
          + " the pod may use"
          + constraints(pod, u);
    }
    return null;
  }

  /** What the pod restricts, so that the reason says why GPUs are not usable. */
  private static String constraints(PodDemand pod, NodeUsage u) {
    List<String> parts = new ArrayList<>(3);
    if (!pod.models().isEmpty()) {
      parts.add("allowed models: " + String.join(", ", new TreeSet<>(pod.models())));
    }
    if (!pod.pinnedUuids().isEmpty()) {
      parts.add("pinned to " + pod.pinnedUuids().size() + " GPU(s)");
    }
    if (!pod.excludedUuids().isEmpty()) {
      parts.add("excludes " + pod.excludedUuids().size() + " GPU(s)");
    }
    if (u.hasCordon()) {
      for (int i = 0; i < u.size(); i++) {
        if (u.isCordoned(i)) {
          parts.add(Placement.cordonWords(u.gpu(i)));
        }
      }
    }
    long largest = 0;
    for (int i = 0; i < u.size(); i++) {
      if (u.isHealthy(i) && !u.isMigParent(i)) {
        largest = Math.max(largest, u.memoryMib(i));
      }
    }
    parts.add(u.size() == 0 ? "the node has no GPUs" : "largest healthy GPU " + largest + " MiB");
    return " (" + String.join("; ", parts) + ")";
  }
}
