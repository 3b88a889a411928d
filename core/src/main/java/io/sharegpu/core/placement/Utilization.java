package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import java.util.List;

/** Utilization arithmetic shared by the built-in policies. */
final class Utilization {
  private Utilization() {}

  /** Mean of the compute and memory fractions held, 0..1. */
  static double of(Gpu gpu, long usedMilli, long usedMemoryMib) {
    double c = (double) usedMilli / gpu.computeMilli();
    double m = gpu.memoryMib() == 0 ? c : (double) usedMemoryMib / gpu.memoryMib();
    return 0.5 * (Math.min(1, c) + Math.min(1, m));
  }

  /**
   * Returns {node mean utilization after the grant, mean utilization of the granted GPUs after the
   * grant}.
   */
  static void after(List<GpuUsage> gpus, List<ContainerGrant> grant, double[] out) {
    double sum = 0;
    double grantedSum = 0;
    int granted = 0;
    for (int i = 0, n = gpus.size(); i < n; i++) {
      GpuUsage u = gpus.get(i);
      long milli = u.usedMilli();
      long mem = u.usedMemoryMib();
      boolean hit = false;
      for (int c = 0, cn = grant.size(); c < cn; c++) {
        List<GpuGrant> gg = grant.get(c).gpus();
        for (int g = 0, gn = gg.size(); g < gn; g++) {
          GpuGrant x = gg.get(g);
          if (x.uuid().equals(u.gpu().uuid())) {
            milli += x.computeMilli();
            mem += x.memoryMib();
            hit = true;
          }
        }
      }
      double util = of(u.gpu(), milli, mem);
      sum += util;
      if (hit) {
        grantedSum += util;
        granted++;
      }
    }
    out[0] = gpus.isEmpty() ? 0 : sum / gpus.size();
    out[1] = granted == 0 ? 0 : grantedSum / granted;
  }

  /**
   * As {@link #after(List, List, double[])}, from a candidate's arrays: the same sums in the same
   * order.
   */
  static void after(List<GpuUsage> gpus, CandidateGrant candidate, double[] out) {
    double sum = 0;
    double grantedSum = 0;
    int granted = 0;
    int cn = candidate.containers();
    for (int i = 0, n = gpus.size(); i < n; i++) {
      GpuUsage u = gpus.get(i);
      long milli = u.usedMilli();
      long mem = u.usedMemoryMib();
      boolean hit = false;
      for (int c = 0; c < cn; c++) {
        for (int k = candidate.start(c), end = k + candidate.granted(c); k < end; k++) {
          if (candidate.gpu(k) == i) {
            milli += candidate.computeMilli(k);
            mem += candidate.memoryMib(k);
            hit = true;
          }
        }
      }
      double util = of(u.gpu(), milli, mem);
      sum += util;
      if (hit) {
        grantedSum += util;
        granted++;
      }
    }
    out[0] = gpus.isEmpty() ? 0 : sum / gpus.size();
    out[1] = granted == 0 ? 0 : grantedSum / granted;
  }
}
