package io.sharegpu.dra;

import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.policy.Fragmentation;
import io.sharegpu.core.policy.PodShape;
import io.sharegpu.core.policy.Workload;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/** A slice of the Alibaba GPU trace to replay, and the figures a replay is compared by. */
public final class TraceReplay {
  private TraceReplay() {}

  /** A pod of the trace: GPUs and compute per GPU. */
  public record TracePod(String name, int numGpu, int gpuMilli) {}

  /**
   * GPU pods of {@code openb_pod_list_default.csv} (at most {@code maxGpus} GPUs; a pod of several
   * GPUs takes them whole), shuffled with {@code seed}, taken until their compute reaches 130% of
   * {@code capacityMilli} or {@code maxPods}. The file is read from the system property {@code
   * sharegpu.traces} (a folder) or {@code ../shared/traces/alibaba-gpu-v2023/csv} next to the
   * repository.
   */
  public static List<TracePod> slice(long capacityMilli, int maxGpus, int maxPods, long seed)
      throws IOException {
    Path file =
        Path.of(
            System.getProperty(
                "sharegpu.traces",
                TestCluster.repoRoot()
                    .resolve("../shared/traces/alibaba-gpu-v2023/csv")
                    .toString()),
            "openb_pod_list_default.csv");
    List<String> lines = Files.readAllLines(file);
    List<String> header = List.of(lines.get(0).split(","));
    int name = header.indexOf("name");
    int numGpu = header.indexOf("num_gpu");
    int gpuMilli = header.indexOf("gpu_milli");
    List<TracePod> all = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",", -1);
      int n = Integer.parseInt(f[numGpu].trim());
      int m = Integer.parseInt(f[gpuMilli].trim());
      if (n >= 1 && n <= maxGpus && m > 0 && (n == 1 || m == 1000)) {
        all.add(new TracePod(f[name], n, m));
      }
    }
    Collections.shuffle(all, new Random(seed));
    long capacity = capacityMilli;
    List<TracePod> out = new ArrayList<>();
    long total = 0;
    for (TracePod p : all) {
      if (out.size() >= maxPods || total >= capacity * 13 / 10) {
        break;
      }
      out.add(p);
      total += (long) p.numGpu() * Math.min(1000, p.gpuMilli());
    }
    return out;
  }

  /** The pods' shapes, for FGD's workload model. */
  public static List<PodShape> shapes(List<TracePod> trace) {
    List<PodShape> shapes = new ArrayList<>();
    for (TracePod t : trace) {
      GpuDemand d =
          t.gpuMilli < 1000
              ? GpuDemand.share("main", t.gpuMilli, 0)
              : GpuDemand.whole("main", t.numGpu, 0);
      shapes.add(PodShape.of(PodDemand.of("trace/" + t.name, t.name, d)));
    }
    return shapes;
  }

  /** How the GPUs of a run's nodes are used at one moment. */
  public record Snapshot(
      long allocatedMilli,
      long capacityMilli,
      int freeGpus,
      int partlyUsedGpus,
      int sharedGpus,
      long freeMilliOnPartlyUsed,
      double fragmentationPct) {

    public static Snapshot of(Ledger ledger, List<String> nodes, Workload workload) {
      long allocated = 0;
      long capacity = 0;
      int free = 0;
      int partly = 0;
      int shared = 0;
      long stranded = 0;
      double frag = 0;
      long freeMilli = 0;
      for (String node : nodes) {
        NodeUsage u = ledger.nodeUsage(node);
        for (int i = 0; i < u.size(); i++) {
          int used = u.usedMilli(i);
          capacity += u.computeMilli(i);
          allocated += used;
          if (used == 0) {
            free++;
          } else if (used < u.computeMilli(i)) {
            partly++;
            stranded += u.freeMilli(i);
          }
          if (u.holderCount(i) >= 2) {
            shared++;
          }
        }
        NodeView v = new NodeView(u.node(), u.usage(), 0, 0);
        frag += Fragmentation.of(v, workload);
        freeMilli += Fragmentation.freeMilli(v);
      }
      return new Snapshot(
          allocated,
          capacity,
          free,
          partly,
          shared,
          stranded,
          freeMilli == 0 ? 0 : frag * 100 / freeMilli);
    }
  }

  /**
   * What a run left: pods placed and failed, the demand that had arrived (in % of the cluster's GPU
   * compute) when the first pod failed, the GPUs at the end, and at the moment 80% had arrived
   * (free GPUs, partly used GPUs and their free compute, FGD's fragmentation rate: the expected
   * fragment over the free compute, for the trace's pod shapes).
   */
  public record Figures(
      int placed, int failed, double firstFailurePct, Snapshot end, Snapshot at80) {

    public static final String HEADER =
        "placer                         placed failed firstFail@arr% alloc%End | at 80% arrived:"
            + " freeGPUs partlyUsed freeMilliOnPartly FGDfrag%";

    public String row(String placer) {
      return String.format(
          Locale.ROOT,
          "%-30s %6d %6d %14.1f %9.1f | %24d %10d %17d %8.1f",
          placer,
          placed,
          failed,
          firstFailurePct,
          end.allocatedMilli() * 100.0 / end.capacityMilli(),
          at80.freeGpus(),
          at80.partlyUsedGpus(),
          at80.freeMilliOnPartlyUsed(),
          at80.fragmentationPct());
    }
  }
}
