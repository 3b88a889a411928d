package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Baseline: prefer GPUs already used by sharing pods (score 50..100, less free is better), then
 * idle GPUs on a node already in use (33..50, fewer idle GPUs taken is better), then idle nodes
 * (0..33, smaller nodes first). A share goes to the fitting GPU with the least free compute; pods
 * without GPUs score the same on every node.
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
    NodeState s = NodeState.of(view);
    int gpus = s.free.length;
    int fullyFree = s.fullyFree();
    if (fullyFree == gpus) {
      return scores.node(Math.max(33 - fullyFree, fullyFree));
    }
    int idleUsed = 0;
    long freeRatioSum = 0;
    for (ContainerGrant c : grant) {
      for (GpuGrant g : c.gpus()) {
        for (int i = 0; i < gpus; i++) {
          if (view.gpus().get(i).gpu().uuid().equals(g.uuid())) {
            if (s.free[i] >= 1000) {
              idleUsed++;
            }
            freeRatioSum += s.free[i] * 100L / 1000;
          }
        }
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
