package io.sharegpu.simulator.peers;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.HostOnlyScore;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.SplittableRandom;

/**
 * KubeShare 1.x ({@code ScheduleAlgorithmBestFit}): over every node with the pod's host CPU and
 * memory free, the pair (node, GPU) whose free compute left after the pod is least wins; a GPU
 * already shared that fits beats an idle one (an idle GPU is only offered on a node where no shared
 * GPU fits, at 1000 − request). Ties fall to whichever node's goroutine reports first: at random
 * here. A SharePod asks for at most one GPU, so pods of several whole GPUs and pods without GPUs go
 * to kube-scheduler's default ({@link KubeDefaultScore}) and the device plugin's idle GPUs. Rules
 * and sources: {@code docs/peers.md}.
 */
public final class KubeSharePolicy implements PlacementPolicy, GpuPreference, HostOnlyScore {
  /** Registered name. */
  public static final String NAME = "kubeshare";

  private final KubeDefaultScore kube = new KubeDefaultScore();
  private final SplittableRandom random;

  /** A policy breaking ties with {@code seed}. */
  public KubeSharePolicy(long seed) {
    this.random = new SplittableRandom(seed);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    double tie = 0.5 * random.nextDouble();
    if (pod.containers().size() != 1 || pod.totalComputeMilli() > 1000) {
      return kube.score(view, pod.cpuMilli(), pod.memoryMib()) + tie;
    }
    GpuGrant g = grant.get(0).gpus().get(0);
    for (GpuUsage u : view.gpus()) {
      if (u.gpu().uuid().equals(g.uuid())) {
        // best fit: the less compute left on the GPU after the pod, the better
        return -(u.freeMilli() - g.computeMilli()) + tie;
      }
    }
    throw new IllegalStateException("granted GPU " + g.uuid() + " is not on " + view.node().name());
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return kube.score(view, cpuMilli, memoryMib) + 0.5 * random.nextDouble();
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return -(gpu.computeMilli() - usedMilli);
  }
}
