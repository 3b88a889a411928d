package io.sharegpu.kubectl.render;

import io.sharegpu.kubectl.report.Explanation;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code explain} output: the per-node table (fits, reason, preemption), the per-GPU reasons of
 * the nodes that do not fit, and where the pod would fit.
 *
 * <pre>
 * Pod ml/big: fits on 0 of 11 nodes
 * NODE     FITS   REASON                                     PREEMPTION
 * gpu-1    no     no GPU has 40960 MiB of memory free        would preempt ml/small
 * gpu-2, gpu-3 +8 more (10 nodes)   no   GPU model A100 is not one of H100   no preemption: ...
 *
 * Per GPU:
 *   gpu-1: GPU 0 (GPU-a): 20480 MiB free, 40960 MiB needed
 * </pre>
 */
public final class ExplainView {

  private static final int NAMES_SHOWN = 2;

  private ExplainView() {}

  /** Returns {@link #render(Explanation, Style, boolean)} with nodes of one answer grouped. */
  public static String render(Explanation e, Style style) {
    return render(e, style, false);
  }

  private static List<List<Explanation.NodeExplanation>> groups(
      List<Explanation.NodeExplanation> nodes, boolean everyNode) {
    java.util.Map<List<Object>, List<Explanation.NodeExplanation>> groups =
        new java.util.LinkedHashMap<>();
    for (Explanation.NodeExplanation n : nodes) {
      List<Object> key =
          everyNode
              ? List.of(n.node())
              : java.util.Arrays.asList(n.fits(), n.reason(), n.preemption());
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(n);
    }
    return new ArrayList<>(groups.values());
  }

  private static String nodes(List<Explanation.NodeExplanation> group) {
    if (group.size() == 1) {
      return group.get(0).node();
    }
    List<String> names =
        group.stream().limit(NAMES_SHOWN).map(Explanation.NodeExplanation::node).toList();
    int more = group.size() - names.size();
    return String.join(", ", names)
        + (more > 0 ? " +" + more + " more" : "")
        + " ("
        + group.size()
        + " nodes)";
  }

  /**
   * Returns the explanation; unless {@code everyNode}, nodes with the same answer (fits, reason,
   * preemption) share one row, {@code gpu-1, gpu-2 +7 more (9 nodes)}, so 5,000 nodes read like
   * kube-scheduler's summary. The per-GPU reasons are listed per node either way.
   */
  public static String render(Explanation e, Style style, boolean everyNode) {
    StringBuilder out = new StringBuilder();
    if (!e.requestErrors().isEmpty()) {
      out.append("Pod ").append(e.pod()).append(": its GPU request cannot be scheduled:\n");
      e.requestErrors().forEach(r -> out.append("  ").append(style.red(r)).append('\n'));
      return out.toString();
    }
    long fitting = e.nodes().stream().filter(Explanation.NodeExplanation::fits).count();
    out.append("Pod ")
        .append(e.pod())
        .append(": fits on ")
        .append(fitting)
        .append(" of ")
        .append(e.nodes().size())
        .append(" node")
        .append(e.nodes().size() == 1 ? "" : "s");
    if (e.heldOn() != null) {
      out.append("; GPUs held for it on ").append(e.heldOn());
    }
    out.append('\n');
    if (e.nodes().isEmpty()) {
      out.append("No GPUNodes are known to the extender.\n");
      return out.toString();
    }
    Table table = new Table(List.of("NODE", "FITS", "REASON", "PREEMPTION"));
    for (List<Explanation.NodeExplanation> group : groups(e.nodes(), everyNode)) {
      Explanation.NodeExplanation n = group.get(0);
      table.row(
          List.of(
              nodes(group),
              n.fits() ? style.green("yes") : style.red("no"),
              n.reason(),
              n.preemption() == null ? "-" : n.preemption()));
    }
    out.append(table.render());
    List<String> perGpu = new ArrayList<>();
    for (Explanation.NodeExplanation n : e.nodes()) {
      for (String g : n.gpus()) {
        perGpu.add("  " + n.node() + ": " + g);
      }
    }
    if (!perGpu.isEmpty()) {
      out.append("\nPer GPU:\n");
      perGpu.forEach(l -> out.append(l).append('\n'));
    }
    List<String> fits =
        e.nodes().stream()
            .filter(Explanation.NodeExplanation::fits)
            .map(Explanation.NodeExplanation::node)
            .toList();
    List<String> preempt =
        e.nodes().stream()
            .filter(n -> n.preemption() != null && n.preemption().startsWith("would preempt"))
            .map(n -> n.node() + " (" + n.preemption() + ")")
            .toList();
    out.append('\n');
    if (!fits.isEmpty()) {
      out.append(style.green("Would fit now on: ")).append(String.join(", ", fits)).append('\n');
    } else if (!preempt.isEmpty()) {
      out.append(style.yellow("Fits nowhere now; with preemption: "))
          .append(String.join("; ", preempt))
          .append('\n');
    } else {
      out.append(style.red("Fits nowhere now, and preemption would not help.")).append('\n');
    }
    return out.toString();
  }
}
