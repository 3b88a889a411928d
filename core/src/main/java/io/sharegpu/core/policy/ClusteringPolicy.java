package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Baseline: keep pods of the same GPU affinity together, as the FGD paper's artifact does. The
 * affinity of a pod is "share" for any fraction of one GPU and "k whole GPUs" otherwise, so all
 * sharing pods form one group whatever their share. A node that holds only pods of the pod's
 * affinity scores 75..100, one that holds them among others 50..75, a node without GPU pods 25..50,
 * a node with other affinities only 0..25; within a band, less free GPU is better ({@code 25 *
 * (8000 - free milli) / 8000}, integer). Pods without GPUs score 0 everywhere. A share goes to the
 * fitting GPU with the least free compute. The affinity of pods on a node is known from {@link
 * #observe}.
 */
public final class ClusteringPolicy implements PlacementPolicy, GpuPreference, HostOnlyScore {
  /** Registered name. */
  public static final String NAME = "clustering";

  /** Affinity of sharing pods. */
  static final int SHARE = -1;

  /** Affinity of pods without GPUs; they do not count on a node. */
  static final int NO_GPU = 0;

  private final KubeScores scores;
  private final Map<String, Integer> requestByPod = new HashMap<>();
  private final Map<String, Known> byNode = new HashMap<>();

  /** A policy breaking ties with {@code seed}. */
  public ClusteringPolicy(long seed) {
    this.scores = new KubeScores(seed);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void observe(PodDemand pod) {
    int k = key(pod);
    if (k != NO_GPU) {
      requestByPod.put(pod.podKey(), k);
    }
  }

  /** The pod's affinity: {@link #SHARE} for a fraction of one GPU, else its number of GPUs. */
  static int key(PodDemand pod) {
    PodShape s = PodShape.of(pod);
    if (s.gpuCount() == 0) {
      return NO_GPU;
    }
    return s.gpuMilli() < GpuDemand.WHOLE_GPU_MILLI ? SHARE : s.gpuCount();
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    int mine = key(pod);
    if (mine == NO_GPU) {
      return scores.node(0);
    }
    long onNode = affinities(view);
    long left = NodeState.totalFree(view);
    long base = 25 * (8000 - left) / 8000;
    long band;
    if ((onNode & bit(mine)) != 0) {
      band = Long.bitCount(onNode) == 1 ? 75 : 50;
    } else {
      band = onNode == 0 ? 25 : 0;
    }
    return scores.node(band + base);
  }

  /**
   * The affinities of the observed pods on the node, one bit each ({@link #bit}); remembered per
   * node until its usage changes, unless some pod on it has not been observed yet.
   */
  private long affinities(NodeView view) {
    List<GpuUsage> gpus = view.gpus();
    String name = view.node().name();
    Known known = byNode.get(name);
    if (known != null && known.gpus == gpus) {
      return known.mask;
    }
    long mask = 0;
    boolean complete = true;
    for (int i = 0, n = gpus.size(); i < n; i++) {
      List<String> pods = gpus.get(i).podKeys();
      for (int j = 0, pn = pods.size(); j < pn; j++) {
        Integer r = requestByPod.get(pods.get(j));
        if (r == null) {
          complete = false;
        } else {
          mask |= bit(r);
        }
      }
    }
    if (complete) {
      byNode.put(name, new Known(gpus, mask));
    }
    return mask;
  }

  /** One bit per affinity: bit 0 for shares, bit k for k whole GPUs (63 and more share bit 63). */
  static long bit(int affinity) {
    return affinity == SHARE ? 1L : 1L << Math.min(affinity, 63);
  }

  /** The affinity bits of a node for one usage list of it. */
  private record Known(List<GpuUsage> gpus, long mask) {}

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
