package io.sharegpu.agent.gpu;

/**
 * A process with a compute context on a GPU, as NVML (or nvidia-smi) reports it.
 *
 * @param pid the process id in the host's PID namespace
 * @param deviceUuid the GPU (or MIG instance) it runs on
 * @param usedMemoryBytes GPU memory the process holds, bytes (0 when the driver does not say)
 */
public record GpuProcess(int pid, String deviceUuid, long usedMemoryBytes) {}
