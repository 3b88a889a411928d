package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;

/**
 * A candidate placement of a pod on one node, as flat per-slot arrays rather than grant objects, so
 * that {@link PlacementPolicy#scoreCandidate} can score it without allocating. A slot is one GPU
 * given to one container: its GPU's position on the node, compute (milli) and GPU memory (MiB). The
 * slots of container {@code c} (the pod's container order) are {@code start(c) .. start(c) +
 * granted(c) - 1}, in the order the GPUs were picked; a container not granted yet has {@code
 * granted(c) == 0}. Only the engine fills it; a policy reads it during the call and keeps nothing,
 * since the engine reuses the same object for the next candidate.
 *
 * <p>{@link #grants} gives the same placement as {@link ContainerGrant}s, in the same order: a
 * policy scoring from the arrays must give exactly what {@link PlacementPolicy#score} gives on
 * those.
 *
 * <p>Example: a pod with containers {@code a} (2 whole GPUs) and {@code b} (a 300m share) placed on
 * GPUs 4 and 5 (a) and 1 (b): {@code containers() = 2}, {@code start = [0, 2]}, {@code granted =
 * [2, 1]}, {@code gpu = [4, 5, 1]}, {@code computeMilli = [1000, 1000, 300]}.
 */
public final class CandidateGrant {
  private static final int MEMORY_BITS = 40;
  private static final long MEMORY_MASK = (1L << MEMORY_BITS) - 1;

  private int containers;
  private int slots;
  private int[] start = new int[1];
  private int[] granted = new int[1];
  private int[] gpu = new int[1];
  private int[] milli = new int[1];
  private long[] memory = new long[1];

  CandidateGrant() {}

  /**
   * Makes room for {@code pod}, with no container granted: a share takes one slot, {@code k} whole
   * GPUs take {@code k}.
   */
  void reset(PodDemand pod) {
    List<GpuDemand> cs = pod.containers();
    int cn = cs.size();
    if (start.length < cn) {
      start = new int[cn];
      granted = new int[cn];
    }
    int k = 0;
    for (int c = 0; c < cn; c++) {
      start[c] = k;
      granted[c] = 0;
      GpuDemand d = cs.get(c);
      k += d.isShare() ? 1 : d.wholeGpus();
    }
    containers = cn;
    slots = k;
    if (gpu.length < k) {
      gpu = new int[k];
      milli = new int[k];
      memory = new long[k];
    }
  }

  /** Puts slot {@code j} of container {@code c} (does not change {@link #granted}). */
  void set(int c, int j, int gpuIndex, int computeMilli, long memoryMib) {
    int k = start[c] + j;
    gpu[k] = gpuIndex;
    milli[k] = computeMilli;
    memory[k] = memoryMib;
  }

  /** Says how many slots of container {@code c} count as granted. */
  void setGranted(int c, int count) {
    granted[c] = count;
  }

  /**
   * Returns a complete candidate (every container granted in full) in one array, which stays as it
   * is while this object is reused: slot {@code k} as {@code gpu << 40 | memoryMib}. The compute of
   * each slot is the pod's (a share's compute, 1000 for a whole GPU), so {@link #grants(NodeUsage,
   * PodDemand, long[])} rebuilds the grants from it and the pod.
   */
  long[] packed() {
    long[] out = new long[slots];
    for (int k = 0; k < slots; k++) {
      out[k] = packed(k);
    }
    return out;
  }

  /** Slot {@code k} as {@link #packed} gives it. */
  long packed(int k) {
    if ((memory[k] & ~MEMORY_MASK) != 0) {
      throw new IllegalStateException("GPU memory out of range: " + memory[k] + " MiB");
    }
    return (long) gpu[k] << MEMORY_BITS | memory[k];
  }

  /** Number of slots of the pod (granted or not). */
  int slots() {
    return slots;
  }

  /** The grants of a {@link #packed} complete candidate of {@code pod}: as {@link #grants}. */
  static List<ContainerGrant> grants(NodeUsage usage, PodDemand pod, long[] packed) {
    List<GpuDemand> cs = pod.containers();
    List<ContainerGrant> out = new ArrayList<>(cs.size());
    int k = 0;
    for (int c = 0, cn = cs.size(); c < cn; c++) {
      GpuDemand d = cs.get(c);
      int count = d.isShare() ? 1 : d.wholeGpus();
      int milli = d.isShare() ? d.computeMilli() : GpuDemand.WHOLE_GPU_MILLI;
      GpuGrant[] gg = new GpuGrant[count];
      for (int j = 0; j < count; j++, k++) {
        int i = (int) (packed[k] >>> MEMORY_BITS);
        gg[j] = new GpuGrant(usage.gpu(i).uuid(), milli, packed[k] & MEMORY_MASK);
      }
      out.add(new ContainerGrant(d.container(), List.of(gg), FitRules.limitMilli(d)));
    }
    return out;
  }

  /** Number of the pod's containers (granted or not). */
  public int containers() {
    return containers;
  }

  /** First slot of container {@code c}. */
  public int start(int c) {
    return start[c];
  }

  /** Number of slots container {@code c} is granted so far (0: none yet). */
  public int granted(int c) {
    return granted[c];
  }

  /** Position on the node (index into {@link NodeView#gpus}) of the GPU of slot {@code k}. */
  public int gpu(int k) {
    return gpu[k];
  }

  /** Compute of slot {@code k}, milli. */
  public int computeMilli(int k) {
    return milli[k];
  }

  /** GPU memory of slot {@code k}, MiB. */
  public long memoryMib(int k) {
    return memory[k];
  }

  /**
   * Returns the candidate as grant objects, the granted containers in the pod's order, each with
   * its GPUs in pick order: what {@link PlacementPolicy#score} is given.
   */
  public List<ContainerGrant> grants(NodeView view, PodDemand pod) {
    List<GpuUsage> gpus = view.gpus();
    List<ContainerGrant> out = new ArrayList<>(containers);
    for (int c = 0; c < containers; c++) {
      int g = granted[c];
      if (g == 0) {
        continue;
      }
      GpuGrant[] gg = new GpuGrant[g];
      for (int j = 0; j < g; j++) {
        int k = start[c] + j;
        gg[j] = new GpuGrant(gpus.get(gpu[k]).gpu().uuid(), milli[k], memory[k]);
      }
      GpuDemand d = pod.containers().get(c);
      out.add(new ContainerGrant(d.container(), List.of(gg), FitRules.limitMilli(d)));
    }
    return out;
  }
}
