package io.sharegpu.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The seeds of one policy on one pod list, summarised.
 *
 * @param policy policy name
 * @param pods pod list file name
 * @param seeds the runs
 * @param unallocated unallocated GPU % at 100% arrived
 * @param allocationRatio allocated ÷ arrived % at 100% arrived
 * @param fragmentationRate fragmentation rate % at 80% arrived
 * @param curve mean unallocated % at arrived 75..130
 */
public record Summary(
    String policy,
    String pods,
    List<SeedResult> seeds,
    Stats unallocated,
    Stats allocationRatio,
    Stats fragmentationRate,
    double[] curve) {

  /** Summarises the runs. */
  public static Summary of(String policy, String pods, List<SeedResult> runs) {
    int n = runs.size();
    double[] u = new double[n];
    double[] a = new double[n];
    double[] f = new double[n];
    int len = Replay.CURVE_TO - Replay.CURVE_FROM + 1;
    double[] curve = new double[len];
    for (int i = 0; i < n; i++) {
      SeedResult r = runs.get(i);
      u[i] = r.unallocatedPctAt100();
      a[i] = r.allocationRatioPctAt100();
      f[i] = r.fragmentationRatePctAt80();
    }
    for (int x = 0; x < len; x++) {
      double[] col = new double[n];
      for (int i = 0; i < n; i++) {
        col[i] = runs.get(i).curve()[x];
      }
      curve[x] = Stats.of(col).mean();
    }
    return new Summary(
        policy, pods, List.copyOf(runs), Stats.of(u), Stats.of(a), Stats.of(f), curve);
  }

  /** The JSON object {@code replay --json} writes. */
  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("policy", policy);
    m.put("pods", pods);
    List<Object> seedList = new ArrayList<>();
    for (SeedResult r : seeds) {
      seedList.add(r.seed());
    }
    m.put("seeds", seedList);
    m.put("unallocatedGpuPctAt100", stats(unallocated));
    m.put("allocationRatioPctAt100", stats(allocationRatio));
    m.put("fragmentationRatePctAt80", stats(fragmentationRate));
    Map<String, Object> c = new LinkedHashMap<>();
    List<Object> xs = new ArrayList<>();
    for (int x = Replay.CURVE_FROM; x <= Replay.CURVE_TO; x++) {
      xs.add(x);
    }
    c.put("arrivedPct", xs);
    c.put("unallocatedPct", curve);
    m.put("curve", c);
    List<Object> per = new ArrayList<>();
    for (SeedResult r : seeds) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("seed", r.seed());
      s.put("pods", r.pods());
      s.put("placed", r.placed());
      s.put("failed", r.failed());
      s.put("unallocatedGpuPctAt100", r.unallocatedPctAt100());
      s.put("allocationRatioPctAt100", r.allocationRatioPctAt100());
      s.put("fragmentationRatePctAt80", r.fragmentationRatePctAt80());
      s.put("millis", r.millis());
      per.add(s);
    }
    m.put("perSeed", per);
    return m;
  }

  private static Map<String, Object> stats(Stats s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mean", s.mean());
    m.put("std", s.std());
    return m;
  }
}
