package io.sharegpu.agent.gpu;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One schedulable GPU: a full GPU, or a MIG instance of a GPU in MIG mode (then {@code parentUuid}
 * and {@code migProfile} are set and the parent itself is not listed).
 *
 * @param uuid {@code GPU-...} or {@code MIG-...}
 * @param index the parent GPU's index on the node
 * @param model the product name, e.g. {@code NVIDIA H200}
 * @param memoryTotalBytes memory of the GPU or instance, bytes
 * @param memoryUsedBytes memory in use (NVML's v2 count, as nvidia-smi shows it), bytes
 * @param utilizationPercent GPU busy percentage over the last sample, or null when unsupported
 *     (MIG)
 * @param computeMilli 1000 for a full GPU; for a MIG instance its share, e.g. 1 of 7 slices = 142
 * @param healthy false when NVML calls for this GPU failed
 */
public record GpuDevice(
    String uuid,
    int index,
    String model,
    long memoryTotalBytes,
    long memoryUsedBytes,
    @Nullable Integer utilizationPercent,
    int computeMilli,
    @Nullable String migProfile,
    @Nullable String parentUuid,
    boolean healthy) {

  public GpuDevice {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(model, "model");
    if (uuid.isBlank()) {
      throw new IllegalArgumentException("GPU uuid is blank");
    }
    if (memoryTotalBytes < 0 || memoryUsedBytes < 0) {
      throw new IllegalArgumentException("negative memory for " + uuid);
    }
    if (computeMilli < 0 || computeMilli > 1000) {
      throw new IllegalArgumentException("computeMilli out of 0..1000 for " + uuid);
    }
  }

  /** Returns a healthy full GPU. */
  public static GpuDevice whole(
      String uuid,
      int index,
      String model,
      long totalBytes,
      long usedBytes,
      @Nullable Integer utilizationPercent) {
    return new GpuDevice(
        uuid, index, model, totalBytes, usedBytes, utilizationPercent, 1000, null, null, true);
  }

  /** Returns a GPU whose NVML calls failed: it keeps what is known and is not schedulable. */
  public GpuDevice unhealthy() {
    return new GpuDevice(
        uuid,
        index,
        model,
        memoryTotalBytes,
        memoryUsedBytes,
        null,
        computeMilli,
        migProfile,
        parentUuid,
        false);
  }

  /** Returns the memory in MiB, rounded down (what node capacity and GPUNode report). */
  public long memoryMiB() {
    return memoryTotalBytes / (1024 * 1024);
  }
}
