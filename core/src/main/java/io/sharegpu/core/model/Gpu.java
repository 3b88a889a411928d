package io.sharegpu.core.model;

import org.jspecify.annotations.Nullable;

/**
 * One schedulable GPU of a node: a whole physical GPU, or a MIG instance of one.
 *
 * @param uuid the NVIDIA UUID ({@code GPU-...} or {@code MIG-...}), unique in the cluster
 * @param index the device index on its node (order of {@code nvidia-smi})
 * @param model the product name, e.g. {@code NVIDIA H100 80GB HBM3}
 * @param memoryMib the GPU memory in MiB
 * @param computeMilli the compute in thousandths of a full GPU: 1000 for a whole GPU, less for a
 *     MIG instance (e.g. 3g of 7g is about 428)
 * @param healthy false when the node agent reports the GPU unusable (no new pods go there)
 * @param parentUuid the UUID of the physical GPU for a MIG instance, null otherwise
 * @param migProfile the MIG profile for a MIG instance, e.g. {@code 1g.10gb}, null otherwise
 * @param cordonReason null when the GPU is not cordoned; when an operator cordoned it (no new pods
 *     go there, the pods on it stay and keep counting), the operator's reason, possibly empty
 */
public record Gpu(
    String uuid,
    int index,
    String model,
    long memoryMib,
    int computeMilli,
    boolean healthy,
    @Nullable String parentUuid,
    @Nullable String migProfile,
    @Nullable String cordonReason) {

  public Gpu {
    if (uuid.isBlank()) {
      throw new IllegalArgumentException("GPU uuid must not be blank");
    }
    if (index < 0) {
      throw new IllegalArgumentException("GPU index must be >= 0, got " + index);
    }
    if (memoryMib < 0) {
      throw new IllegalArgumentException("GPU memoryMib must be >= 0, got " + memoryMib);
    }
    if (computeMilli <= 0 || computeMilli > 1000) {
      throw new IllegalArgumentException(
          "GPU computeMilli must be in 1..1000, got " + computeMilli);
    }
    if (parentUuid != null && parentUuid.equals(uuid)) {
      throw new IllegalArgumentException("GPU " + uuid + " cannot be its own MIG parent");
    }
  }

  /** Returns a GPU that is not cordoned. */
  public Gpu(
      String uuid,
      int index,
      String model,
      long memoryMib,
      int computeMilli,
      boolean healthy,
      @Nullable String parentUuid,
      @Nullable String migProfile) {
    this(uuid, index, model, memoryMib, computeMilli, healthy, parentUuid, migProfile, null);
  }

  /** Returns a healthy whole GPU (1000m compute, no MIG). */
  public static Gpu whole(String uuid, int index, String model, long memoryMib) {
    return new Gpu(uuid, index, model, memoryMib, 1000, true, null, null);
  }

  /** Returns true for a MIG instance (it has a parent GPU). */
  public boolean isMig() {
    return parentUuid != null;
  }

  /** Returns true when an operator cordoned the GPU: it takes no new pods. */
  public boolean cordoned() {
    return cordonReason != null;
  }

  /** Returns a copy with the given health. */
  public Gpu withHealthy(boolean healthy) {
    return new Gpu(
        uuid, index, model, memoryMib, computeMilli, healthy, parentUuid, migProfile, cordonReason);
  }

  /**
   * Returns a copy cordoned with {@code reason} (empty when the operator gave none), or not
   * cordoned when {@code reason} is null.
   */
  public Gpu withCordon(@Nullable String reason) {
    return new Gpu(
        uuid, index, model, memoryMib, computeMilli, healthy, parentUuid, migProfile, reason);
  }
}
