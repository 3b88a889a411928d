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
 * @param emptyGpusAt50 GPUs no pod holds, % of all GPUs, at 50% arrived
 * @param nodesTouchedAt50 nodes holding any pod at 50% arrived
 * @param emptyGpus GPUs no pod holds, % of all GPUs, at 100% arrived
 * @param nodesTouched nodes holding any pod at 100% arrived
 * @param curve mean unallocated % at arrived 75..130
 */
public record Summary(
    String policy,
    String pods,
    List<SeedResult> seeds,
    Stats unallocated,
    Stats allocationRatio,
    Stats fragmentationRate,
    Stats emptyGpusAt50,
    Stats nodesTouchedAt50,
    Stats emptyGpus,
    Stats nodesTouched,
    double[] curve) {

  /** Summarises the runs. */
  public static Summary of(String policy, String pods, List<SeedResult> runs) {
    int n = runs.size();
    double[] u = new double[n];
    double[] a = new double[n];
    double[] f = new double[n];
    double[] e50 = new double[n];
    double[] t50 = new double[n];
    double[] e = new double[n];
    double[] t = new double[n];
    int len = Replay.CURVE_TO - Replay.CURVE_FROM + 1;
    double[] curve = new double[len];
    for (int i = 0; i < n; i++) {
      SeedResult r = runs.get(i);
      u[i] = r.unallocatedPctAt100();
      a[i] = r.allocationRatioPctAt100();
      f[i] = r.fragmentationRatePctAt80();
      e50[i] = r.emptyGpuPctAt50();
      t50[i] = r.nodesTouchedAt50() < 0 ? Double.NaN : r.nodesTouchedAt50();
      e[i] = r.emptyGpuPctAt100();
      t[i] = r.nodesTouchedAt100() < 0 ? Double.NaN : r.nodesTouchedAt100();
    }
    for (int x = 0; x < len; x++) {
      double[] col = new double[n];
      for (int i = 0; i < n; i++) {
        col[i] = runs.get(i).curve()[x];
      }
      curve[x] = Stats.of(col).mean();
    }
    return new Summary(
        policy,
        pods,
        List.copyOf(runs),
        Stats.of(u),
        Stats.of(a),
        Stats.of(f),
        Stats.of(e50),
        Stats.of(t50),
        Stats.of(e),
        Stats.of(t),
        curve);
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
    m.put("emptyGpuPctAt50", stats(emptyGpusAt50));
    m.put("nodesTouchedAt50", stats(nodesTouchedAt50));
    m.put("emptyGpuPctAt100", stats(emptyGpus));
    m.put("nodesTouchedAt100", stats(nodesTouched));
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
      s.put("emptyGpuPctAt50", r.emptyGpuPctAt50());
      s.put("nodesTouchedAt50", r.nodesTouchedAt50());
      s.put("cpuStrandedPctAt100", r.cpuStrandedPctAt100());
      s.put("memoryStrandedPctAt100", r.memoryStrandedPctAt100());
      s.put("emptyGpuPctAt100", r.emptyGpuPctAt100());
      s.put("nodesTouchedAt100", r.nodesTouchedAt100());
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
