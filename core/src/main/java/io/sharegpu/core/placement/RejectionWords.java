package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The words of placement: the one-line reason a pod does not fit a node (the same words for every
 * node that fails the same way, so that the scheduler's event groups them), one line per GPU for
 * {@link Placement#explain}, and the GPU labels and cordon words other parts reuse.
 */
final class RejectionWords {
  /** At most this many cordoned GPUs are named in one reason line. */
  private static final int CORDONS_NAMED = 3;

  private RejectionWords() {}

  static String noGpuNode() {
    return "no GPUNode for this node: its GPUs are not known (is the node agent running there?)";
  }

  /**
   * The one-line reason; with {@code cache}, lines are shared by failure shape (refusal, container,
   * bars of the node's GPUs, idle GPUs found), so that thousands of nodes failing alike build one
   * string. Nodes with a cordon name their own GPUs and are never shared.
   */
  static String summary(PodPlan plan, NodeUsage u, Failure f, @Nullable Map<Long, String> cache) {
    if (cache == null || u.size() == 0 || u.hasCordon()) {
      return summaryText(plan, u, f);
    }
    int mask = 0;
    boolean anyAllowed = false;
    if (f.refusal.onGpus()) {
      GpuDemand d = plan.pod.containers().get(f.container);
      for (int i = 0; i < u.size(); i++) {
        int m = plan.rules.bars(u, i, d);
        mask |= m;
        anyAllowed |= m == 0;
      }
    }
    long key =
        ((long) f.refusal.ordinal() << 56)
            | ((long) (f.container & 0xffff) << 40)
            | ((long) (anyAllowed ? 0 : mask) << 24)
            | (anyAllowed ? 1L << 23 : 0)
            | (f.available & 0x7fffff);
    String text = cache.get(key);
    if (text == null) {
      text = summaryText(plan, u, f);
      cache.put(key, text);
    }
    return text;
  }

  private static String summaryText(PodPlan plan, NodeUsage u, Failure f) {
    PodDemand pod = plan.pod;
    switch (f.refusal) {
      case HOST_CPU:
        return "not enough free host CPU for " + pod.cpuMilli() + "m";
      case HOST_MEMORY:
        return "not enough free host memory for " + pod.memoryMib() + " MiB";
      case SHARE:
      case WHOLE:
        break;
      default:
        return "does not fit";
    }
    GpuDemand d = pod.containers().get(f.container);
    String prefix = pod.containers().size() > 1 ? "container " + d.container() + ": " : "";
    if (u.size() == 0) {
      return prefix + "the node has no GPUs";
    }
    int mask = 0;
    boolean anyAllowed = false;
    for (int i = 0; i < u.size(); i++) {
      int m = plan.rules.bars(u, i, d);
      mask |= m;
      anyAllowed |= m == 0;
    }
    if (!anyAllowed) {
      return prefix + "no GPU the pod may use: " + describe(mask, plan, u);
    }
    // GPUs the pod could use but for their cordon: name them, the operator's reason is the news
    String cordons = u.hasCordon() ? cordons(plan, u, d) : "";
    String tail = cordons.isEmpty() ? "" : " (" + cordons + ")";
    if (d.isShare()) {
      String mem = d.memoryMib() > 0 ? d.memoryMib() + " MiB memory" : "its share of memory";
      return prefix + "no GPU has " + d.computeMilli() + "m compute and " + mem + " free" + tail;
    }
    int k = d.wholeGpus();
    return prefix
        + "needs "
        + k
        + (k == 1 ? " idle GPU" : " idle GPUs")
        + (d.memoryMib() > 0 ? " with " + d.memoryMib() + " MiB memory" : "")
        + ", found "
        + f.available
        + tail;
  }

  /**
   * Names the node's cordoned GPUs with the operator's reasons, e.g. {@code GPU GPU-e4aea6a9-1b4…
   * is cordoned: Xid 79, card to be replaced}; at most {@value #CORDONS_NAMED}, then how many more.
   * With {@code usableBy} only those that container could otherwise use.
   */
  private static String cordons(PodPlan plan, NodeUsage u, @Nullable GpuDemand usableBy) {
    StringBuilder sb = new StringBuilder();
    int named = 0;
    int more = 0;
    for (int i = 0; i < u.size(); i++) {
      if (!u.isCordoned(i)) {
        continue;
      }
      if (usableBy != null && (plan.rules.bars(u, i, usableBy) & ~GpuBar.CORDONED.bit()) != 0) {
        continue;
      }
      if (named == CORDONS_NAMED) {
        more++;
        continue;
      }
      if (named++ > 0) {
        sb.append("; ");
      }
      sb.append(cordonWords(u.gpu(i)));
    }
    if (more > 0) {
      sb.append("; ")
          .append(more)
          .append(more == 1 ? " more GPU" : " more GPUs")
          .append(" cordoned");
    }
    return sb.toString();
  }

  /** {@code GPU GPU-e4aea6a9-1b4… is cordoned: Xid 79, card to be replaced}. */
  static String cordonWords(Gpu gpu) {
    return "GPU " + shortUuid(gpu.uuid()) + " is " + cordonStatus(gpu);
  }

  /** {@code cordoned: Xid 79, card to be replaced}, or {@code cordoned} without a reason. */
  private static String cordonStatus(Gpu gpu) {
    String reason = gpu.cordonReason();
    return reason == null || reason.isBlank() ? "cordoned" : "cordoned: " + reason.strip();
  }

  private static String shortUuid(String uuid) {
    return uuid.length() > 16 ? uuid.substring(0, 16) + "…" : uuid;
  }

  private static String describe(int mask, PodPlan plan, NodeUsage u) {
    List<String> parts = new ArrayList<>(4);
    for (GpuBar bar : GpuBar.values()) {
      if (bar.in(mask) && bar != GpuBar.CORDONED) {
        parts.add(words(bar, plan));
      }
    }
    String text = String.join(", ", parts);
    if (GpuBar.CORDONED.in(mask)) {
      // the operator's reasons may hold commas: set apart with a semicolon
      String cordons = cordons(plan, u, null);
      text = text.isEmpty() ? cordons : text + "; " + cordons;
    }
    return text;
  }

  private static String words(GpuBar bar, PodPlan plan) {
    switch (bar) {
      case UNHEALTHY:
        return "unhealthy";
      case MIG_PARENT:
        return "MIG enabled (only its MIG instances are used)";
      case MIG_INSTANCE:
        return "MIG instances cannot take a whole-GPU request";
      case MODEL:
        return "model not allowed (allowed: " + allowed(plan) + ")";
      case NOT_PINNED:
        return "not among the pinned GPUs";
      case EXCLUDED:
        return "excluded by the pod";
      default:
        return "cordoned";
    }
  }

  private static String allowed(PodPlan plan) {
    return String.join(", ", new TreeSet<>(plan.pod.models()));
  }

  /** The explanation of a pod that fits: {@code fits: ...} with its GPUs, and each GPU's state. */
  static Rejection fits(String node, NodeUsage u, Outcome o) {
    StringBuilder sb = new StringBuilder("fits: ");
    for (int c = 0; c < o.grants().size(); c++) {
      ContainerGrant cg = o.grants().get(c);
      if (c > 0) {
        sb.append("; ");
      }
      sb.append("container ").append(cg.container()).append(" on ");
      for (int g = 0; g < cg.gpus().size(); g++) {
        GpuGrant gg = cg.gpus().get(g);
        int p = u.position(gg.uuid());
        if (g > 0) {
          sb.append(", ");
        }
        sb.append(label(u.gpu(p)))
            .append(' ')
            .append(gg.computeMilli())
            .append("m/")
            .append(gg.memoryMib())
            .append(" MiB");
      }
    }
    List<String> gpuReasons = new ArrayList<>(u.size());
    for (int i = 0; i < u.size(); i++) {
      gpuReasons.add(label(u.gpu(i)) + ": " + status(u, i));
    }
    return new Rejection(node, sb.toString(), gpuReasons);
  }

  /**
   * The explanation of a pod that does not fit: the reason line and why each GPU cannot take it.
   */
  static Rejection doesNotFit(String node, PodPlan plan, NodeUsage u, Failure f) {
    List<String> gpuReasons = new ArrayList<>(u.size());
    if (f.refusal.onGpus()) {
      GpuDemand d = plan.pod.containers().get(f.container);
      for (int i = 0; i < u.size(); i++) {
        gpuReasons.add(label(u.gpu(i)) + ": " + gpuReason(plan, u, i, d, f));
      }
    } else {
      for (int i = 0; i < u.size(); i++) {
        gpuReasons.add(label(u.gpu(i)) + ": " + status(u, i));
      }
    }
    return new Rejection(node, summary(plan, u, f, null), gpuReasons);
  }

  /** Why GPU {@code i} cannot take container {@code d}, given what the pod took before it. */
  private static String gpuReason(PodPlan plan, NodeUsage u, int i, GpuDemand d, Failure f) {
    Gpu gpu = u.gpu(i);
    if (u.isMigParent(i)) {
      return "MIG enabled: pods use its MIG instances";
    }
    if (!gpu.healthy()) {
      return "unhealthy";
    }
    if (gpu.cordoned()) {
      return cordonStatus(gpu);
    }
    int bars = plan.rules.bars(u, i, d);
    if (GpuBar.MODEL.in(bars)) {
      return "model " + gpu.model() + " not allowed (allowed: " + allowed(plan) + ")";
    }
    if (GpuBar.NOT_PINNED.in(bars)) {
      return "not among the GPUs the pod is pinned to";
    }
    if (GpuBar.EXCLUDED.in(bars)) {
      return "excluded by the pod";
    }
    if (GpuBar.MIG_INSTANCE.in(bars)) {
      return "MIG instance cannot take a whole-GPU request";
    }
    if (u.isExclusive(i)) {
      return "held whole by " + String.join(", ", u.holders(i));
    }
    int[] takenBy = f.takenBy;
    if (takenBy != null && takenBy[i] >= 0 && takenBy[i] != f.container) {
      return "taken whole by container "
          + plan.pod.containers().get(takenBy[i]).container()
          + " of this pod";
    }
    int addMilli = f.addMilli == null ? 0 : f.addMilli[i];
    long addMem = f.addMem == null ? 0 : f.addMem[i];
    if (!d.isShare()) {
      if (u.holderCount(i) > 0) {
        return "in use by " + String.join(", ", u.holders(i)) + " (a whole GPU must be idle)";
      }
      if (addMilli > 0 && (takenBy == null || takenBy[i] != f.container)) {
        return "used by another container of this pod (a whole GPU must be idle)";
      }
      long perGpu = FitRules.perGpuMemory(d);
      if (gpu.memoryMib() < perGpu) {
        return gpu.memoryMib() + " MiB memory, need " + perGpu + " MiB per GPU";
      }
      return "idle and allowed";
    }
    int freeMilli = Math.max(0, gpu.computeMilli() - u.usedMilli(i) - addMilli);
    long freeMem = Math.max(0, gpu.memoryMib() - u.usedMemoryMib(i) - addMem);
    long mem = FitRules.shareMemory(d, gpu.computeMilli(), gpu.memoryMib());
    List<String> parts = new ArrayList<>(2);
    if (freeMilli < d.computeMilli()) {
      parts.add(
          freeMilli
              + "m of "
              + gpu.computeMilli()
              + "m compute free, need "
              + d.computeMilli()
              + "m");
    }
    if (freeMem < mem) {
      parts.add(freeMem + " of " + gpu.memoryMib() + " MiB memory free, need " + mem + " MiB");
    }
    return parts.isEmpty() ? "fits" : String.join("; ", parts);
  }

  private static String status(NodeUsage u, int i) {
    Gpu gpu = u.gpu(i);
    if (u.isMigParent(i)) {
      return "MIG enabled: pods use its MIG instances";
    }
    StringBuilder sb = new StringBuilder();
    if (!gpu.healthy()) {
      sb.append("unhealthy; ");
    }
    if (gpu.cordoned()) {
      sb.append(cordonStatus(gpu)).append("; ");
    }
    if (u.isExclusive(i)) {
      return sb.append("held whole by ").append(String.join(", ", u.holders(i))).toString();
    }
    sb.append(u.freeMilli(i))
        .append("m of ")
        .append(gpu.computeMilli())
        .append("m compute and ")
        .append(u.freeMemoryMib(i))
        .append(" of ")
        .append(gpu.memoryMib())
        .append(" MiB memory free");
    if (u.holderCount(i) > 0) {
      sb.append(" (used by ").append(String.join(", ", u.holders(i))).append(')');
    }
    return sb.toString();
  }

  /** {@code GPU 3 (NVIDIA H100 80GB HBM3, GPU-1234abcd…)}; MIG instances name their profile. */
  static String label(Gpu gpu) {
    StringBuilder sb = new StringBuilder("GPU ").append(gpu.index());
    if (gpu.isMig()) {
      sb.append(" MIG ").append(gpu.migProfile() == null ? "instance" : gpu.migProfile());
    }
    sb.append(" (").append(gpu.model()).append(", ");
    sb.append(shortUuid(gpu.uuid())).append(')');
    return sb.toString();
  }
}
