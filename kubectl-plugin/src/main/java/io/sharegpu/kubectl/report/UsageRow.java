package io.sharegpu.kubectl.report;

/**
 * One container's use of one GPU as the node agent measured it.
 *
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param container the container
 * @param node the node
 * @param gpuUuid the GPU
 * @param memoryUsedBytes memory its processes hold on the GPU, in bytes
 * @param assignedMemoryMib memory assigned to it on that GPU, in MiB; 0 when unknown
 * @param gpuUtilization the whole GPU's utilisation, 0..1; negative when not reported (MIG)
 */
public record UsageRow(
    String namespace,
    String pod,
    String container,
    String node,
    String gpuUuid,
    double memoryUsedBytes,
    long assignedMemoryMib,
    double gpuUtilization) {}
