package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Fragmentation Gradient Descent (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
 * Workloads with Fragmentation Gradient Descent", USENIX ATC 2023), re-implemented from its
 * description. The target workload is the set of most frequent pod shapes covering 95% of the pods,
 * given in advance through {@link #prime}; until primed, it counts the pods it observes. A node
 * scores {@code int(100 * sigmoid((F_before - F_after) / 1000))} where F is the node's expected
 * fragment ({@link NodeState#fragment}); ties are broken at random, as kube-scheduler does. A share
 * goes to the GPU where the fragment grows least.
 */
public final class FgdPolicy
    implements PlacementPolicy, GpuPreference, HostOnlyScore, WorkloadAware {
  /** Registered name. */
  public static final String NAME = "fgd";

  /** Share of pods the target workload covers. */
  public static final double COVERAGE = 0.95;

  private final KubeScores scores;
  private final boolean quantized;
  private Workload workload = new Workload();
  private boolean primed;
  private final FragmentIndex index = new FragmentIndex();

  /** A policy breaking ties with {@code seed}. */
  public FgdPolicy(long seed) {
    this(seed, true);
  }

  /**
   * A policy breaking ties with {@code seed}; {@code quantized = false} scores the fragment growth
   * exactly instead of as an integer 0..100.
   */
  public FgdPolicy(long seed, boolean quantized) {
    this.scores = new KubeScores(seed);
    this.quantized = quantized;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void prime(List<PodShape> pods) {
    workload = Workload.fit(pods, COVERAGE);
    primed = true;
    index.clear();
  }

  @Override
  public void observe(PodDemand pod) {
    if (!primed) {
      workload.add(PodShape.of(pod), 1);
    }
  }

  /** The workload model in use. */
  public Workload workload() {
    return workload;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    double b = index.before(view, workload);
    double a = index.after(view, workload, grant, pod.cpuMilli());
    return nodeScore(b - a);
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    double b = index.before(view, workload);
    double a = index.after(view, workload, List.of(), cpuMilli);
    return nodeScore(b - a);
  }

  private double nodeScore(double decrease) {
    if (!quantized) {
      return decrease + 1e-6 * scores.next();
    }
    return scores.node((long) (100 * KubeScores.sigmoid(decrease / 1000)));
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    return -index.gpuGrowth(workload, gpu, usedMilli, addMilli);
  }

  /**
   * How much the expected fragment of one GPU grows when {@code addMilli} more is taken on it, with
   * the node's CPU and other GPUs left out.
   */
  static double gpuFragmentGrowth(Workload w, Gpu gpu, int usedMilli, int addMilli) {
    int free = Math.max(0, gpu.computeMilli() - usedMilli);
    int after = Math.max(0, free - addMilli);
    boolean[] allowed = w.allowed(gpu.model());
    double d = 0;
    for (int s = 0, n = w.size(); s < n; s++) {
      double p = w.probability(s);
      PodShape m = w.shape(s);
      boolean open = m.gpuCount() > 0 && allowed[s];
      double fb = open && free >= m.gpuMilli() ? 0 : free;
      double fa = open && after >= m.gpuMilli() ? 0 : after;
      d += p * (fa - fb);
    }
    return d;
  }
}
