package io.sharegpu.kubectl.render;

import io.sharegpu.kubectl.report.PodReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code pods} table: one row per GPU container with its node, GPUs, share, limit, memory and
 * the MPS caps its containers read ({@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE}, {@code
 * CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}).
 *
 * <pre>
 * NAME   CONTAINER   NODE    GPUS    SHARE   LIMIT   MEMORY   MPS-THREADS   MPS-MEM-LIMIT
 * nb-1   main        gpu-1   GPU-a   0.25    0.5     10Gi     50%           0=10240M
 * </pre>
 */
public final class PodsView {

  private PodsView() {}

  /**
   * Returns the table; with {@code allNamespaces} a NAMESPACE column comes first; {@code wide} adds
   * the phase.
   */
  public static String table(
      List<PodReport> pods, boolean allNamespaces, boolean wide, Style style) {
    List<String> headers = new ArrayList<>();
    if (allNamespaces) {
      headers.add("NAMESPACE");
    }
    headers.addAll(
        List.of(
            "NAME",
            "CONTAINER",
            "NODE",
            "GPUS",
            "SHARE",
            "LIMIT",
            "MEMORY",
            "MPS-THREADS",
            "MPS-MEM-LIMIT"));
    if (wide) {
      headers.add("PHASE");
    }
    Table table = new Table(headers);
    for (PodReport p : pods) {
      for (PodReport.ContainerRow c : p.containers()) {
        List<String> row = new ArrayList<>();
        if (allNamespaces) {
          row.add(p.namespace());
        }
        row.add(style.bold(p.name()));
        row.add(c.container());
        row.add(p.node().isEmpty() ? "-" : p.node());
        row.add(gpus(c.gpuUuids(), wide));
        row.add(Bar.milli(c.shareMilli()));
        row.add(Bar.milli(c.limitMilli()));
        row.add(mib(c.memoryMib()));
        row.add(c.mpsThreadPercentage().isEmpty() ? "-" : c.mpsThreadPercentage() + "%");
        row.add(c.mpsPinnedMemLimit().isEmpty() ? "-" : c.mpsPinnedMemLimit());
        if (wide) {
          row.add(p.phase().isEmpty() ? "-" : p.phase());
        }
        table.row(row);
      }
    }
    return table.render();
  }

  /** Returns the UUIDs; beyond two, unless {@code wide}, the first two and {@code +N more}. */
  static String gpus(List<String> uuids, boolean wide) {
    if (wide || uuids.size() <= 2) {
      return String.join(",", uuids);
    }
    return String.join(",", uuids.subList(0, 2)) + " +" + (uuids.size() - 2) + " more";
  }

  /** Returns {@code 10Gi} for 10240, {@code 1.5Gi} for 1536, {@code 500Mi} for 500, "-" for 0. */
  static String mib(long mib) {
    if (mib == 0) {
      return "-";
    }
    if (mib % 1024 == 0) {
      return mib / 1024 + "Gi";
    }
    return mib >= 1024 ? String.format(Locale.ROOT, "%.1fGi", mib / 1024.0) : mib + "Mi";
  }
}
