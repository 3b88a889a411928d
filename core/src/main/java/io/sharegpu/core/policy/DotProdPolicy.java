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
    double dot = cpuTerm(view, pod.cpuMilli());
    PodShape shape = PodShape.of(pod);
    if (shape.gpuCount() == 1 && shape.gpuMilli() < 1000) {
      int i = NodeState.position(view, grant.get(0).gpus().get(0).uuid());
      int free = i < 0 ? 0 : NodeState.free(view.gpus().get(i));
      dot += (free / 1000.0) * (shape.gpuMilli() / 1000.0);
    } else {
      dot +=
          (NodeState.totalFree(view) / KubeScores.MAX_SPEC_GPU)
              * (pod.totalComputeMilli() / 8000.0);
    }
    return scores.node((long) (100 * (1 - dot / 2)));
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return scores.node((long) (100 * (1 - cpuTerm(view, cpuMilli) / 2)));
  }

  /** The CPU part of the product: free CPU share of the node times the pod's CPU share. */
  private static double cpuTerm(NodeView view, long cpuMilli) {
    double cpu = view.node().cpuMilli() > 0 ? NodeState.freeCpu(view) / KubeScores.MAX_SPEC_CPU : 0;
    return cpu * cpuMilli / KubeScores.MAX_SPEC_CPU;
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return -(gpu.computeMilli() - usedMilli);
  }
}
