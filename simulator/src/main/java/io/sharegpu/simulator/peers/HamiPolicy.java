package io.sharegpu.simulator.peers;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.HostOnlyScore;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * HAMi's scheduler extender. Its filter scores every node that fits and answers only the best one,
 * so kube-scheduler's own scores play no part for GPU pods.
 *
 * <ul>
 *   <li>Node score, on the node as it is before the pod: {@code 10 × (Σ pods on its GPUs ÷ Σ slots
 *       + Σ cores used ÷ Σ cores + Σ memory used ÷ Σ memory)}, with 10 slots per GPU (the default
 *       {@code deviceSplitCount}); node policy {@code binpack} (the default) takes the highest,
 *       {@code spread} the lowest.
 *   <li>GPU score, with the container added: {@code (pods + 1) ÷ 10 + (cores used + request) ÷ 100
 *       + (memory used + request) ÷ memory}; GPU policy {@code spread} (the default) takes the
 *       lowest, {@code binpack} the highest.
 * </ul>
 *
 * A share of f asks for f × 100 cores and f × the GPU's memory; a whole GPU for 100 cores and all
 * its memory. Equal node scores fall in the order of a Go map and an unstable sort: at random here.
 * Pods without GPUs are not HAMi's: kube-scheduler's default ({@link KubeDefaultScore}) places
 * them. Rules and sources: {@code docs/peers.md}.
 */
public final class HamiPolicy implements PlacementPolicy, HostOnlyScore {
  /** Registered name of HAMi's defaults: node binpack, GPU spread. */
  public static final String NAME = "hami";

  /** Registered name of node binpack, GPU binpack. */
  public static final String BINPACK_NAME = "hami-binpack";

  private static final int SLOTS_PER_GPU = 10;
  private static final double WEIGHT = 10;

  private final String name;
  private final boolean gpuBinpack;
  private final KubeDefaultScore kube = new KubeDefaultScore();
  private final SplittableRandom random;
  private @Nullable NodeView lastView;
  private double lastNodeScore;

  /**
   * @param gpuBinpack whether GPUs are chosen by binpack (HAMi's default is spread)
   * @param seed breaks ties between equal node scores
   */
  public HamiPolicy(boolean gpuBinpack, long seed) {
    this.name = gpuBinpack ? BINPACK_NAME : NAME;
    this.gpuBinpack = gpuBinpack;
    this.random = new SplittableRandom(seed);
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * The node score (binpack: higher is better) first, then, a million times smaller, the GPU scores
   * of the grant, then a random tie-break below both.
   */
  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    if (view != lastView) {
      lastView = view;
      lastNodeScore = nodeScore(view);
    }
    double gpus = 0;
    List<GpuUsage> usages = view.gpus();
    for (ContainerGrant c : grant) {
      for (GpuGrant g : c.gpus()) {
        for (GpuUsage u : usages) {
          if (u.gpu().uuid().equals(g.uuid())) {
            gpus += gpuScore(u, g);
            break;
          }
        }
      }
    }
    return lastNodeScore + 1e-6 * (gpuBinpack ? gpus : -gpus) + 1e-9 * random.nextDouble();
  }

  /** HAMi's node score on the node before the pod. */
  static double nodeScore(NodeView view) {
    long pods = 0;
    long used = 0;
    long capacity = 0;
    long usedMemory = 0;
    long memory = 0;
    for (GpuUsage u : view.gpus()) {
      pods += u.podKeys().size();
      used += Math.min(u.usedMilli(), u.gpu().computeMilli());
      capacity += u.gpu().computeMilli();
      usedMemory += u.usedMemoryMib();
      memory += u.gpu().memoryMib();
    }
    if (capacity == 0 || memory == 0) {
      return 0;
    }
    int n = view.gpus().size();
    return WEIGHT
        * ((double) pods / (SLOTS_PER_GPU * n)
            + (double) used / capacity
            + (double) usedMemory / memory);
  }

  /** HAMi's GPU score with the container's request added. */
  static double gpuScore(GpuUsage u, GpuGrant g) {
    double cores = (double) (u.usedMilli() + g.computeMilli()) / u.gpu().computeMilli();
    double memory = (double) (u.usedMemoryMib() + g.memoryMib()) / u.gpu().memoryMib();
    return WEIGHT * ((u.podKeys().size() + 1.0) / SLOTS_PER_GPU + cores + memory);
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return kube.score(view, cpuMilli, memoryMib) + 0.5 * random.nextDouble();
  }
}
