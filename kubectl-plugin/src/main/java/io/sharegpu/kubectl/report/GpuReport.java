package io.sharegpu.kubectl.report;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One GPU (or MIG instance) of a node with what is placed on it.
 *
 * @param index the GPU's index on the node
 * @param uuid the GPU's UUID
 * @param model the product name
 * @param migProfile the MIG profile, null for a full GPU
 * @param parentUuid the UUID of the physical GPU of a MIG instance, null for a full GPU
 * @param healthy false when the node agent reports the GPU unhealthy
 * @param computeMilli capacity in thousandths (1000 for a full GPU)
 * @param memoryMib capacity in MiB
 * @param usedMilli compute of the pods on it, in thousandths
 * @param usedMemoryMib memory of the pods on it, in MiB
 * @param pods the containers placed on it
 * @param cordon why it is cordoned, null when it is not
 */
public record GpuReport(
    int index,
    String uuid,
    String model,
    @Nullable String migProfile,
    @Nullable String parentUuid,
    boolean healthy,
    int computeMilli,
    long memoryMib,
    int usedMilli,
    long usedMemoryMib,
    List<PodOnGpu> pods,
    @Nullable Cordon cordon) {

  public GpuReport {
    pods = List.copyOf(pods);
  }

  /** Returns true when an operator cordoned the GPU. */
  public boolean cordoned() {
    return cordon != null;
  }

  /** A cordon as written on the GPUNode: free text and RFC 3339 time, either may be empty. */
  public record Cordon(String reason, String time) {}
}
