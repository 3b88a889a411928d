package io.sharegpu.kubectl.render;

import io.sharegpu.kubectl.report.Explanation;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code explain} output: the per-node table (fits, reason, preemption), the per-GPU reasons of
 * the nodes that do not fit, and where the pod would fit.
 *
 * <pre>
 * Pod ml/big: fits on 0 of 2 nodes
 * NODE     FITS   REASON                                     PREEMPTION
 * gpu-1    no     no GPU has 40960 MiB of memory free        would preempt ml/small
 * gpu-2    no     GPU model A100 is not one of H100          no preemption: ...
 *
 * Per GPU:
 *   gpu-1: GPU 0 (GPU-a): 20480 MiB free, 40960 MiB needed
 * </pre>
 */
public final class ExplainView {

  private ExplainView() {}

  public static String render(Explanation e, Style style) {
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
    for (Explanation.NodeExplanation n : e.nodes()) {
      table.row(
          List.of(
              n.node(),
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
