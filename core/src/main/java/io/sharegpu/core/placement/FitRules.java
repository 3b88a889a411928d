package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.Arrays;

/**
 * The fit rules of one pod, written once for the engine, the words and preemption.
 *
 * <p>A GPU is barred ({@link #bars}) when unhealthy, cordoned, split into MIG instances, of a model
 * the pod does not allow (the lower-case product name must contain one of the pod's models), not
 * pinned when the pod pins, or excluded. A share takes, on a GPU nobody holds whole, its compute
 * and its memory ({@link #shareMemory}); whole GPUs take GPUs that are not MIG instances, that
 * nobody uses, with at least the asked memory per GPU ({@link #perGpuMemory}), and take their whole
 * memory.
 */
final class FitRules {
  private final PodDemand pod;
  private final String[] models;
  private final boolean pinned;
  private final boolean excluded;

  FitRules(PodDemand pod) {
    this.pod = pod;
    this.pinned = !pod.pinnedUuids().isEmpty();
    this.excluded = !pod.excludedUuids().isEmpty();
    this.models = pod.models().toArray(new String[0]);
    Arrays.sort(models);
  }

  PodDemand pod() {
    return pod;
  }

  /** True when the pod pins or excludes GPUs (its fit then depends on UUIDs). */
  boolean namesGpus() {
    return pinned || excluded;
  }

  /** The {@link GpuBar}s of GPU {@code i} for this pod, as bits; 0 when it may use the GPU. */
  int bars(NodeUsage u, int i) {
    int bars = 0;
    if (!u.isHealthy(i)) {
      bars |= GpuBar.UNHEALTHY.bit();
    }
    if (u.isCordoned(i)) {
      bars |= GpuBar.CORDONED.bit();
    }
    if (u.isMigParent(i)) {
      bars |= GpuBar.MIG_PARENT.bit();
    }
    if (models.length > 0 && !allowedModel(u.modelLowerCase(i))) {
      bars |= GpuBar.MODEL.bit();
    }
    if (pinned && !pod.pinnedUuids().contains(u.gpu(i).uuid())) {
      bars |= GpuBar.NOT_PINNED.bit();
    }
    if (excluded && pod.excludedUuids().contains(u.gpu(i).uuid())) {
      bars |= GpuBar.EXCLUDED.bit();
    }
    return bars;
  }

  /** {@link #bars(NodeUsage, int)} for container {@code d}: whole GPUs also bar MIG instances. */
  int bars(NodeUsage u, int i, GpuDemand d) {
    int bars = bars(u, i);
    return !d.isShare() && u.gpu(i).isMig() ? bars | GpuBar.MIG_INSTANCE.bit() : bars;
  }

  private boolean allowedModel(String modelLowerCase) {
    for (String m : models) {
      if (modelLowerCase.contains(m)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The memory share {@code d} takes on GPU {@code i} over what is held there plus {@code addMilli}
   * and {@code addMemoryMib} (this pod's earlier containers), or -1 when it does not fit there:
   * held whole, or not enough free compute or memory. The bars are tested apart.
   */
  static long shareTakes(NodeUsage u, int i, GpuDemand d, int addMilli, long addMemoryMib) {
    if (u.isExclusive(i)) {
      return -1;
    }
    int cap = u.computeMilli(i);
    if (u.usedMilli(i) + addMilli + d.computeMilli() > cap) {
      return -1;
    }
    long capMem = u.memoryMib(i);
    long mem = shareMemory(d, cap, capMem);
    return u.usedMemoryMib(i) + addMemoryMib + mem > capMem ? -1 : mem;
  }

  /** {@link #shareTakes} on the GPU were it idle. */
  static long shareTakesIdle(NodeUsage u, int i, GpuDemand d) {
    int cap = u.computeMilli(i);
    long capMem = u.memoryMib(i);
    long mem = shareMemory(d, cap, capMem);
    return d.computeMilli() > cap || mem > capMem ? -1 : mem;
  }

  /**
   * True when GPU {@code i} can be one of the whole GPUs of a container asking {@code perGpuMib}
   * per GPU: nobody holds any of it, no earlier container of this pod ({@code addMilli}) uses it.
   */
  static boolean wholeTakes(NodeUsage u, int i, long perGpuMib, int addMilli) {
    return u.holderCount(i) == 0 && addMilli == 0 && wholeTakesIdle(u, i, perGpuMib);
  }

  /** {@link #wholeTakes} on the GPU were it idle: not a MIG instance, enough memory. */
  static boolean wholeTakesIdle(NodeUsage u, int i, long perGpuMib) {
    return !u.isMigInstance(i) && u.memoryMib(i) >= perGpuMib;
  }

  /**
   * The memory a share takes on a GPU: as asked, or its part of the GPU's memory rounded down (at
   * least 1 MiB), so that shares whose compute adds up to the whole GPU also fit its memory (four
   * quarters of an 81,559 MiB H100 take 20,389 MiB each; rounded up they would need 81,560).
   */
  static long shareMemory(GpuDemand d, int computeMilli, long memoryMib) {
    if (d.memoryMib() > 0) {
      return d.memoryMib();
    }
    return Math.max(1, (long) d.computeMilli() * memoryMib / computeMilli);
  }

  /** The memory each of k whole GPUs needs: the asked memory over k, rounded up; 0 if not asked. */
  static long perGpuMemory(GpuDemand d) {
    int k = d.wholeGpus();
    return k == 0 || d.memoryMib() == 0 ? 0 : (d.memoryMib() + k - 1) / k;
  }

  /** The compute cap granted: a share's limit (at least its request), 1000 for whole GPUs. */
  static int limitMilli(GpuDemand d) {
    return d.isShare() ? Math.max(d.limitMilli(), d.computeMilli()) : GpuDemand.WHOLE_GPU_MILLI;
  }
}
