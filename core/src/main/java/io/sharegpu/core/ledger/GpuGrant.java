package io.sharegpu.core.ledger;

/**
 * A part of one GPU given to one container.
 *
 * @param uuid the GPU's UUID
 * @param computeMilli thousandths of a full GPU; 1000 for a whole GPU (exclusive)
 * @param memoryMib GPU memory in MiB; the full memory for a whole GPU
 */
public record GpuGrant(String uuid, int computeMilli, long memoryMib) {

  public GpuGrant {
    if (uuid.isBlank()) {
      throw new IllegalArgumentException("grant: GPU uuid must not be blank");
    }
    if (computeMilli <= 0 || computeMilli > 1000) {
      throw new IllegalArgumentException(
          "grant on " + uuid + ": computeMilli must be in 1..1000, got " + computeMilli);
    }
    if (memoryMib < 0) {
      throw new IllegalArgumentException(
          "grant on " + uuid + ": memoryMib must be >= 0, got " + memoryMib);
    }
  }

  /** Returns true for a whole GPU, held exclusively. */
  public boolean isWhole() {
    return computeMilli >= 1000;
  }
}
