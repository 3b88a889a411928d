package io.sharegpu.kubectl.report;

/**
 * One container's grant on one GPU, as read from its pod's assignment annotations.
 *
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param container the container holding the GPU
 * @param shareMilli compute taken on this GPU in thousandths (1000 for a whole GPU)
 * @param limitMilli compute cap in thousandths (the MPS thread percentage × 10)
 * @param memoryMib memory taken on this GPU, in MiB
 */
public record PodOnGpu(
    String namespace,
    String pod,
    String container,
    int shareMilli,
    int limitMilli,
    long memoryMib) {

  /** Returns {@code namespace/pod}. */
  public String key() {
    return namespace + "/" + pod;
  }
}
