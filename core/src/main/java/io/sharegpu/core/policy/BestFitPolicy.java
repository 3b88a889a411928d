package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Baseline: the node with the least (CPU, GPU) left after the placement, each normalised by the
 * largest node shape (128 cores, 8 GPUs) and weighted 0.5/0.5; a share goes to the fitting GPU with
 * the least free compute.
 */
public final class BestFitPolicy implements PlacementPolicy, GpuPreference, HostOnlyScore {
  /** Registered name. */
  public static final String NAME = "bestfit";

  private final KubeScores scores;

  /** A policy breaking ties with {@code seed}. */
  public BestFitPolicy(long seed) {
    this.scores = new KubeScores(seed);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    return scores.node(score(view, pod.cpuMilli(), pod.totalComputeMilli()));
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return scores.node(score(view, cpuMilli, 0));
  }

  static long score(NodeView view, long cpuMilli, long gpuMilli) {
    boolean cpuTracked = view.node().cpuMilli() > 0;
    double cpuLeft = cpuTracked ? NodeState.freeCpu(view) - cpuMilli : 0;
    double gpuLeft = NodeState.totalFree(view) - gpuMilli;
    double left = 0.5 * cpuLeft / KubeScores.MAX_SPEC_CPU + 0.5 * gpuLeft / KubeScores.MAX_SPEC_GPU;
    return (long) ((1 - left) * 100);
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return -(gpu.computeMilli() - usedMilli);
  }
}
