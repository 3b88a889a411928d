package io.sharegpu.simulator;

/**
 * The outcome of one replay.
 *
 * @param seed the seed
 * @param pods pods that arrived (copies included)
 * @param placed pods placed
 * @param failed pods that fit nowhere
 * @param unallocatedPctAt100 100 - allocated % of capacity when arrived first reached 100%
 * @param allocationRatioPctAt100 allocated ÷ arrived × 100 at that moment
 * @param fragmentationRatePctAt80 FGD's fragment over all nodes ÷ free GPU × 100 when arrived first
 *     reached 80%
 * @param emptyGpuPctAt50 GPUs that no pod holds any part of, % of all GPUs, when arrived first
 *     reached 50%
 * @param nodesTouchedAt50 nodes holding at least one pod (with or without GPUs) at that moment
 * @param emptyGpuPctAt100 GPUs that no pod holds any part of, % of all GPUs, when arrived first
 *     reached 100%
 * @param nodesTouchedAt100 nodes holding at least one pod at that moment
 * @param cpuStrandedPctAt100 free GPU compute, % of capacity, on nodes whose free host CPU is below
 *     the median CPU request of the list's GPU pods, when arrived first reached 100%
 * @param memoryStrandedPctAt100 the same for host memory, on the other nodes
 * @param curve unallocated GPU % when arrived first reached 75%, 76%, ... 130% of capacity
 * @param millis wall time of the replay
 */
public record SeedResult(
    long seed,
    int pods,
    int placed,
    int failed,
    double unallocatedPctAt100,
    double allocationRatioPctAt100,
    double fragmentationRatePctAt80,
    double emptyGpuPctAt50,
    int nodesTouchedAt50,
    double emptyGpuPctAt100,
    int nodesTouchedAt100,
    double cpuStrandedPctAt100,
    double memoryStrandedPctAt100,
    double[] curve,
    long millis) {}
