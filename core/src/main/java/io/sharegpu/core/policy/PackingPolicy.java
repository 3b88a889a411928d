package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Baseline: prefer GPUs already used by sharing pods (score 50..100, less free is better), then
 * idle GPUs on a node already in use (33..50, fewer idle GPUs taken is better), then idle nodes
 * (0..33, smaller nodes first), as the FGD paper's artifact scores them: integers, {@code 100 -
 * sum(free% of the GPUs taken) / 10} at least 50, {@code 50 - idle GPUs taken} at least 33, {@code
 * max(33 - idle GPUs, idle GPUs)}. A share goes to the fitting GPU with the least free compute (the
 * lowest index on ties), whole GPUs to the lowest idle ones; pods without GPUs score the same on
 * every node, so they go to the first node (in the run's node order) with the CPU and memory.
 */
public final class PackingPolicy implements PlacementPolicy, GpuPreference, HostOnlyScore {
  /** Registered name. */
  public static final String NAME = "packing";

  private final KubeScores scores;

  /** A policy breaking ties with {@code seed}. */
  public PackingPolicy(long seed) {
    this.scores = new KubeScores(seed);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    List<GpuUsage> gpus = view.gpus();
    int n = gpus.size();
    int fullyFree = 0;
    for (int i = 0; i < n; i++) {
      if (NodeState.free(gpus.get(i)) >= GpuDemand.WHOLE_GPU_MILLI) {
        fullyFree++;
      }
    }
    if (fullyFree == n) {
      return scores.node(Math.max(33 - fullyFree, fullyFree));
    }
    int idleUsed = 0;
    long freeRatioSum = 0;
    for (int c = 0, cn = grant.size(); c < cn; c++) {
      List<GpuGrant> gg = grant.get(c).gpus();
      for (int k = 0, kn = gg.size(); k < kn; k++) {
        int i = NodeState.position(view, gg.get(k).uuid());
        if (i < 0) {
          continue;
        }
        int free = NodeState.free(gpus.get(i));
        if (free >= GpuDemand.WHOLE_GPU_MILLI) {
          idleUsed++;
        }
        freeRatioSum += free * 100L / 1000;
      }
    }
    if (idleUsed > 0) {
      return scores.node(Math.max(50 - idleUsed, 33));
    }
    return scores.node(Math.max(100 - freeRatioSum / 10, 50));
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    // every node scores the minimum for a pod without GPUs; ties go to the first node
    return scores.node(0);
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return -(gpu.computeMilli() - usedMilli);
  }
}
