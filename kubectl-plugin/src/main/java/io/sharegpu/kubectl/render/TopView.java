package io.sharegpu.kubectl.render;

import io.sharegpu.kubectl.report.UsageRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code top} table: per container and GPU the memory in use against the memory assigned, and
 * the GPU's utilisation (NVML reports utilisation per GPU, not per process: pods sharing a GPU show
 * the same figure).
 */
public final class TopView {

  private TopView() {}

  public static String table(List<UsageRow> rows, boolean allNamespaces, Style style) {
    List<String> headers = new ArrayList<>();
    if (allNamespaces) {
      headers.add("NAMESPACE");
    }
    headers.addAll(
        List.of("NAME", "CONTAINER", "NODE", "GPU", "MEMORY(USED/ASSIGNED)", "GPU-UTIL"));
    Table table = new Table(headers);
    for (UsageRow r : rows) {
      List<String> row = new ArrayList<>();
      if (allNamespaces) {
        row.add(r.namespace());
      }
      long usedMib = Math.round(r.memoryUsedBytes() / (1024 * 1024));
      row.add(r.pod());
      row.add(r.container());
      row.add(r.node());
      row.add(r.gpuUuid());
      row.add(
          r.assignedMemoryMib() > 0
              ? Bar.of(usedMib, r.assignedMemoryMib(), 8, style)
                  + " "
                  + usedMib
                  + "/"
                  + r.assignedMemoryMib()
                  + "Mi"
              : usedMib + "Mi");
      row.add(
          r.gpuUtilization() < 0
              ? "-"
              : String.format(Locale.ROOT, "%.0f%%", r.gpuUtilization() * 100));
      table.row(row);
    }
    return table.render();
  }
}
