package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.placement.StateScored;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * ShareGPU's default policy: online fragmentation descent. It learns the workload only from the
 * pods it has observed: every shape seen, weighted by the GPU compute those pods asked for (so a
 * shape matters as much as the capacity it needs, not as its pod count), and places each pod where
 * the expected fragment ({@link NodeState#fragment}: GPU compute that the pods to come could not
 * use) grows least, in exact arithmetic rather than an integer score. Ties go to the node with less
 * free GPU left (packing), then less free CPU. A share goes to the GPU where the fragment grows
 * least, then to the GPU with the least free compute. Before it has seen any pod it packs.
 */
public final class ShareGpuPolicy
    implements PlacementPolicy, GpuPreference, HostOnlyScore, StateScored {
  /** Registered name. */
  public static final String NAME = "sharegpu";

  private final Workload workload = new Workload();
  private final FragmentIndex index = new FragmentIndex();
  private long observed;
  private final double byCount;

  /** A policy that has seen no pod yet; pods count by the GPUs they ask for. */
  public ShareGpuPolicy() {
    this(0);
  }

  /**
   * @param byCount how a pod counts in the workload model: {@code byCount} per pod plus {@code 1 -
   *     byCount} per GPU it asks for (0, the default, measured best on the trace)
   */
  ShareGpuPolicy(double byCount) {
    this.byCount = byCount;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void observe(PodDemand pod) {
    observe(PodShape.of(pod));
  }

  /** Counts one pod of this shape (the simulator also reports pods without GPUs here). */
  public void observe(PodShape shape) {
    workload.add(shape, byCount + (1 - byCount) * shape.totalGpuMilli() / 1000.0);
    observed++;
  }

  /** Number of pods observed. */
  public long observed() {
    return observed;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    return score(view, grant, pod.cpuMilli());
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return score(view, List.of(), cpuMilli);
  }

  private double score(NodeView view, List<ContainerGrant> grant, long cpuMilli) {
    double fragmentAfter = index.after(view, workload, grant, cpuMilli);
    double tie =
        -index.lastTotalFree() * 1e-6 - (index.lastCpuTracked() ? index.lastFreeCpu() * 1e-12 : 0);
    if (workload.total() == 0) {
      return tie * 1e6;
    }
    double growth = fragmentAfter - index.before(view, workload);
    return -growth + tie;
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    double bestFit = -(gpu.computeMilli() - usedMilli) * 1e-6;
    if (workload.total() == 0) {
      return bestFit;
    }
    return -index.gpuGrowth(workload, gpu, usedMilli, addMilli) + bestFit;
  }
}
