package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Baseline after Tetris: the dot product of the node's free (CPU, GPU) vector and the pod's
 * request, both normalised by the largest node shape; as in the FGD paper's artifact the node (and
 * GPU) with the smallest product wins, which packs pods where little is left. A share looks at the
 * free compute of the GPU it would get.
 */
public final class DotProdPolicy implements PlacementPolicy, GpuPreference, HostOnlyScore {
  /** Registered name. */
  public static final String NAME = "dotprod";

  private final KubeScores scores;

  /** A policy breaking ties with {@code seed}. */
  public DotProdPolicy(long seed) {
    this.scores = new KubeScores(seed);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    NodeState s = NodeState.of(view);
    double cpu = s.cpuTracked ? s.freeCpu / KubeScores.MAX_SPEC_CPU : 0;
    double dot = cpu * pod.cpuMilli() / KubeScores.MAX_SPEC_CPU;
    PodShape shape = PodShape.of(pod);
    if (shape.gpuCount() == 1 && shape.gpuMilli() < 1000) {
      int free = 0;
      String uuid = grant.get(0).gpus().get(0).uuid();
      for (int i = 0; i < s.free.length; i++) {
        if (view.gpus().get(i).gpu().uuid().equals(uuid)) {
          free = s.free[i];
        }
      }
      dot += (free / 1000.0) * (shape.gpuMilli() / 1000.0);
    } else {
      dot += (s.totalFree() / KubeScores.MAX_SPEC_GPU) * (pod.totalComputeMilli() / 8000.0);
    }
    return scores.node((long) (100 * (1 - dot / 2)));
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    NodeState s = NodeState.of(view);
    double cpu = s.cpuTracked ? s.freeCpu / KubeScores.MAX_SPEC_CPU : 0;
    double dot = cpu * cpuMilli / KubeScores.MAX_SPEC_CPU;
    return scores.node((long) (100 * (1 - dot / 2)));
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return -(gpu.computeMilli() - usedMilli);
  }
}
