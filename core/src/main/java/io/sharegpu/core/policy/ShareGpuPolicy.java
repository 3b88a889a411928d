package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.placement.StateScored;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * ShareGPU's default policy: online fragmentation descent with host-resource stranding. It learns
 * the workload only from the pods it has observed and places each pod where the node's expected
 * waste grows least. The expected waste of a node has two parts:
 *
 * <ol>
 *   <li>the expected fragment ({@link NodeState#fragment}: GPU compute that the pods to come could
 *       not use), over every shape seen (pods with and without GPUs), each weighted by its pod
 *       count;
 *   <li>the stranded GPU compute: free GPU compute that the node's free host CPU or host memory
 *       cannot feed, at the CPU and memory per GPU that the observed GPU pods asked for on average
 *       ({@code max(0, freeGpu - freeCpu / cpuPerGpu, freeGpu - freeMemory / memoryPerGpu)}). A
 *       node whose CPU runs out strands all its free GPU; this term steers CPU-hungry pods (and
 *       pods without GPUs) to nodes with CPU to spare long before that cliff. Nodes that do not
 *       track host CPU or memory (the extender's) have no stranding.
 * </ol>
 *
 * <p>Scores are exact arithmetic rather than an integer score. Ties go to the node with less free
 * GPU left (packing), then less free CPU. A share goes to the GPU where the fragment grows least,
 * then to the GPU with the least free compute. Before it has seen any pod it packs.
 */
public final class ShareGpuPolicy
    implements PlacementPolicy, GpuPreference, HostOnlyScore, StateScored {
  /** Registered name. */
  public static final String NAME = "sharegpu";

  /** Default weight of stranded GPU compute against the expected fragment. */
  static final double DEFAULT_STRAND_WEIGHT = 2.0;

  private final Workload workload = new Workload();
  private final FragmentIndex index = new FragmentIndex();
  private long observed;
  private final double byCount;
  private final double strandWeight;
  private double gpuSeen;
  private double cpuSeen;
  private double memorySeen;

  /** A policy that has seen no pod yet; every pod counts once. */
  public ShareGpuPolicy() {
    this(1, DEFAULT_STRAND_WEIGHT);
  }

  /**
   * @param byCount how a pod counts in the workload model: {@code byCount} per pod plus {@code 1 -
   *     byCount} per GPU it asks for (1, the default: with the stranded term, counting pods
   *     measured as good as counting GPUs on the default list and far better on lists of pods
   *     restricted to GPU models)
   * @param strandWeight weight of the stranded GPU compute (0 = plain fragmentation descent)
   */
  ShareGpuPolicy(double byCount, double strandWeight) {
    this.byCount = byCount;
    this.strandWeight = strandWeight;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Counts the pod's shape, and its host CPU and memory if it asks for GPUs. */
  @Override
  public void observe(PodDemand pod) {
    PodShape shape = PodShape.of(pod);
    long gpu = shape.totalGpuMilli();
    if (gpu > 0) {
      gpuSeen += gpu;
      cpuSeen += pod.cpuMilli();
      memorySeen += pod.memoryMib();
    }
    observe(shape);
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
    return score(view, grant, pod.cpuMilli(), pod.memoryMib());
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return score(view, List.of(), cpuMilli, memoryMib);
  }

  private double score(NodeView view, List<ContainerGrant> grant, long cpuMilli, long memoryMib) {
    double fragmentAfter = index.after(view, workload, grant, cpuMilli);
    int freeAfter = index.lastTotalFree();
    double tie = -freeAfter * 1e-6 - (index.lastCpuTracked() ? index.lastFreeCpu() * 1e-12 : 0);
    if (workload.total() == 0) {
      return tie * 1e6;
    }
    double growth = fragmentAfter - index.before(view, workload);
    if (strandWeight != 0) {
      growth += strandWeight * strandingGrowth(view, freeAfter, cpuMilli, memoryMib);
    }
    return -growth + tie;
  }

  /** How much the stranded GPU compute of the node grows when the pod takes its resources. */
  private double strandingGrowth(NodeView view, int freeAfter, long cpuMilli, long memoryMib) {
    boolean cpuTracked = view.node().cpuMilli() > 0 && cpuSeen > 0;
    boolean memoryTracked = view.node().memoryMib() > 0 && memorySeen > 0;
    if (!cpuTracked && !memoryTracked) {
      return 0;
    }
    int freeBefore = 0;
    List<GpuUsage> gpus = view.gpus();
    for (int i = 0, n = gpus.size(); i < n; i++) {
      GpuUsage u = gpus.get(i);
      if (u.gpu().healthy() && !u.exclusive()) {
        freeBefore += u.freeMilli();
      }
    }
    long cpu = view.freeCpuMilli();
    long memory = view.freeMemoryMib();
    double before = stranded(freeBefore, cpu, cpuTracked, memory, memoryTracked);
    double after =
        stranded(
            freeAfter,
            Math.max(0, cpu - cpuMilli),
            cpuTracked,
            Math.max(0, memory - memoryMib),
            memoryTracked);
    return after - before;
  }

  /** Free GPU compute (milli) that this much free host CPU and memory cannot feed. */
  private double stranded(
      int freeGpu, long freeCpu, boolean cpuTracked, long freeMemory, boolean memoryTracked) {
    double s = 0;
    if (cpuTracked) {
      s = Math.max(s, freeGpu - freeCpu * gpuSeen / cpuSeen);
    }
    if (memoryTracked) {
      s = Math.max(s, freeGpu - freeMemory * gpuSeen / memorySeen);
    }
    return s;
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
