package io.sharegpu.kubectl.render;

import io.sharegpu.kubectl.report.GpuReport;
import io.sharegpu.kubectl.report.NodeReport;
import io.sharegpu.kubectl.report.PodOnGpu;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code nodes} table: one row per GPU, compute and memory as bars, the pods on it, MIG, health
 * and cordon. The wide form adds the UUID, the parent GPU of a MIG instance, each pod's share and
 * memory, the cordon reason and the enforcement.
 *
 * <pre>
 * NODE     GPU   MODEL                  COMPUTE              MEMORY                    PODS           MIG   HEALTH    STATE
 * gpu-1    0     NVIDIA H100 80GB HBM3  [##......] 0.25/1    [#.......] 10.0/79.6Gi    default/nb-1   -     Healthy   Schedulable
 * </pre>
 */
public final class NodesView {

  private static final int BAR = 8;
  private static final int PODS_SHOWN = 3;

  private NodesView() {}

  /** Returns the table followed by a one-line summary. */
  public static String table(List<NodeReport> nodes, boolean wide, Style style) {
    List<String> headers = new ArrayList<>(List.of("NODE", "GPU", "MODEL"));
    if (wide) {
      headers.add("UUID");
    }
    headers.addAll(List.of("COMPUTE", "MEMORY", "PODS", "MIG", "HEALTH", "STATE"));
    if (wide) {
      headers.addAll(List.of("PARENT", "REASON", "ENFORCEMENT"));
    }
    Table table = new Table(headers);
    for (NodeReport n : nodes) {
      if (n.gpus().isEmpty()) {
        List<String> row = new ArrayList<>(List.of(n.name(), "-", style.dim("(no GPUs reported)")));
        while (row.size() < headers.size()) {
          row.add("");
        }
        table.row(row);
        continue;
      }
      for (GpuReport g : n.gpus()) {
        List<String> row = new ArrayList<>();
        row.add(n.name());
        row.add(Integer.toString(g.index()));
        row.add(g.model());
        if (wide) {
          row.add(g.uuid());
        }
        row.add(
            Bar.of(g.usedMilli(), g.computeMilli(), BAR, style)
                + " "
                + Bar.gpus(g.usedMilli(), g.computeMilli()));
        row.add(
            Bar.of(g.usedMemoryMib(), g.memoryMib(), BAR, style)
                + " "
                + Bar.gib(g.usedMemoryMib(), g.memoryMib()));
        row.add(pods(g.pods(), wide));
        row.add(g.migProfile() == null ? "-" : g.migProfile());
        row.add(g.healthy() ? style.green("Healthy") : style.red("Unhealthy"));
        row.add(g.cordoned() ? style.yellow("Cordoned") : "Schedulable");
        if (wide) {
          row.add(g.parentUuid() == null ? "-" : g.parentUuid());
          row.add(g.cordon() == null ? "-" : reason(g.cordon()));
          row.add(n.enforcement() == null ? "-" : n.enforcement());
        }
        table.row(row);
      }
    }
    return table.render() + summary(nodes, style);
  }

  /**
   * Returns e.g. {@code 2 nodes, 10 GPUs: compute 3.25/10 allocated, memory 120.0/700.0Gi; 1
   * cordoned, 0 unhealthy}.
   */
  static String summary(List<NodeReport> nodes, Style style) {
    int gpus = 0;
    int used = 0;
    int total = 0;
    long usedMib = 0;
    long totalMib = 0;
    int cordoned = 0;
    int unhealthy = 0;
    for (NodeReport n : nodes) {
      for (GpuReport g : n.gpus()) {
        gpus++;
        used += g.usedMilli();
        total += g.computeMilli();
        usedMib += g.usedMemoryMib();
        totalMib += g.memoryMib();
        cordoned += g.cordoned() ? 1 : 0;
        unhealthy += g.healthy() ? 0 : 1;
      }
    }
    return style.dim(
            String.format(
                Locale.ROOT,
                "%d node%s, %d GPU%s: compute %s allocated, memory %s; %d cordoned, %d unhealthy",
                nodes.size(),
                nodes.size() == 1 ? "" : "s",
                gpus,
                gpus == 1 ? "" : "s",
                Bar.gpus(used, total),
                Bar.gib(usedMib, totalMib),
                cordoned,
                unhealthy))
        + "\n";
  }

  private static String pods(List<PodOnGpu> pods, boolean wide) {
    if (pods.isEmpty()) {
      return "-";
    }
    List<String> names = new ArrayList<>();
    for (PodOnGpu p : pods) {
      String name = p.key();
      if (wide) {
        name +=
            "/"
                + p.container()
                + "("
                + Bar.milli(p.shareMilli())
                + ","
                + String.format(Locale.ROOT, "%.1fGi", p.memoryMib() / 1024.0)
                + ")";
      }
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    if (wide || names.size() <= PODS_SHOWN) {
      return String.join(",", names);
    }
    return String.join(",", names.subList(0, PODS_SHOWN))
        + " +"
        + (names.size() - PODS_SHOWN)
        + " more";
  }

  private static String reason(GpuReport.Cordon cordon) {
    String reason = cordon.reason().isEmpty() ? "(no reason)" : cordon.reason();
    return cordon.time().isEmpty() ? reason : reason + " (" + cordon.time() + ")";
  }
}
