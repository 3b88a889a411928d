package io.sharegpu.api.gpunode;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What the scheduler extender has allocated on a node, in {@code status.allocation} of its GPUNode
 * for {@code kubectl get gpunodes} (FREE, CORDONED). Written by the extender replica that binds,
 * only when it changed and at most every few seconds per node, so it may lag the extender's ledger
 * (the {@code /debug} endpoints show the live state). The node agent leaves it alone.
 */
public class GpuNodeAllocation {

  private int freeGpus;
  private long allocatedMilli;
  private long allocatedMemoryMiB;
  private int pods;
  private int cordonedGpus;

  /**
   * Returns how many GPUs (MIG instances counted, MIG-enabled parents not) nothing is allocated on,
   * cordoned or unhealthy ones included.
   */
  public int getFreeGpus() {
    return freeGpus;
  }

  public void setFreeGpus(int freeGpus) {
    this.freeGpus = freeGpus;
  }

  /** Returns the compute allocated on the node's GPUs, in thousandths of a GPU. */
  public long getAllocatedMilli() {
    return allocatedMilli;
  }

  public void setAllocatedMilli(long allocatedMilli) {
    this.allocatedMilli = allocatedMilli;
  }

  /** Returns the GPU memory allocated on the node, in MiB. */
  @JsonProperty("allocatedMemoryMiB")
  public long getAllocatedMemoryMiB() {
    return allocatedMemoryMiB;
  }

  public void setAllocatedMemoryMiB(long allocatedMemoryMiB) {
    this.allocatedMemoryMiB = allocatedMemoryMiB;
  }

  /** Returns how many pods hold GPUs on the node (reserved, bound, running or terminating). */
  public int getPods() {
    return pods;
  }

  public void setPods(int pods) {
    this.pods = pods;
  }

  /** Returns how many GPUs (or MIG instances) {@code spec.cordonedGpus} takes out of placement. */
  public int getCordonedGpus() {
    return cordonedGpus;
  }

  public void setCordonedGpus(int cordonedGpus) {
    this.cordonedGpus = cordonedGpus;
  }
}
