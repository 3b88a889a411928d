package io.sharegpu.simulator.peers;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.HostOnlyScore;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Aliyun gpushare-scheduler-extender: the extender only filters (a node fits if one GPU has the
 * memory) and binds; the node is kube-scheduler's choice by its default scores ({@link
 * KubeDefaultScore}, ties at random as kube-scheduler's host selection breaks them), and at bind
 * the pod gets the GPU with the least free memory that fits (the lowest index on ties). Pods of
 * several whole GPUs and pods without GPUs go to kube-scheduler's default alone, and the device
 * plugin hands out idle GPUs in index order. The replay gives each GPU as much memory as compute,
 * so least free memory is least free compute. Rules and sources: {@code docs/peers.md}.
 */
public final class GpusharePolicy implements PlacementPolicy, GpuPreference, HostOnlyScore {
  /** Registered name. */
  public static final String NAME = "gpushare";

  private final KubeDefaultScore kube = new KubeDefaultScore();
  private final SplittableRandom random;

  /** A policy breaking ties between equal node scores with {@code seed}. */
  public GpusharePolicy(long seed) {
    this.random = new SplittableRandom(seed);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    return kube.score(view, pod.cpuMilli(), pod.memoryMib()) + 0.5 * random.nextDouble();
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return kube.score(view, cpuMilli, memoryMib) + 0.5 * random.nextDouble();
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return -(gpu.memoryMib() - usedMemoryMib);
  }
}
