package io.sharegpu.agent.kube;

import io.sharegpu.agent.gpu.GpuDevice;
import io.sharegpu.agent.gpu.GpuSnapshot;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Maps a GPU snapshot to the GPUNode status and the Node's extended resources. */
public final class GpuNodeStatusMapper {

  private GpuNodeStatusMapper() {}

  /** Returns the GPUNode status for a snapshot; {@code enforcement} is "mps" or "none". */
  public static GPUNodeStatus toStatus(GpuSnapshot snapshot, String enforcement, Instant now) {
    GPUNodeStatus status = new GPUNodeStatus();
    List<GpuStatus> gpus = new ArrayList<>();
    for (GpuDevice device : snapshot.devices()) {
      GpuStatus gpu =
          new GpuStatus(device.uuid(), device.index(), device.model(), device.memoryMiB());
      gpu.setComputeMilli(device.computeMilli());
      gpu.setMigProfile(device.migProfile());
      gpu.setParentUuid(device.parentUuid());
      gpu.setHealthy(device.healthy());
      gpus.add(gpu);
    }
    status.setGpus(gpus);
    status.setDriverVersion(snapshot.driverVersion());
    status.setEnforcement(enforcement);
    status.setHeartbeatTime(now.truncatedTo(ChronoUnit.SECONDS).toString());
    return status;
  }

  /**
   * Returns the Node's {@code status.capacity} values: {@code sharegpu.io/gpu-milli} = sum of
   * computeMilli (1000 per GPU, a MIG instance its share) and {@code sharegpu.io/gpu-memory} = sum
   * of MiB, over all devices. Example: two H200s of 143771 MiB → {gpu-milli: 2000, gpu-memory:
   * 287542}.
   */
  public static Map<String, String> capacity(GpuSnapshot snapshot) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put(ShareGpuResources.GPU_MILLI, Long.toString(snapshot.totalComputeMilli()));
    values.put(ShareGpuResources.GPU_MEMORY, Long.toString(snapshot.totalMemoryMiB()));
    return values;
  }

  /**
   * Returns the Node's {@code status.allocatable} values: as {@link #capacity} but over healthy
   * devices only, so kube-scheduler's node-level sums stop counting a failed GPU.
   */
  public static Map<String, String> allocatable(GpuSnapshot snapshot) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put(ShareGpuResources.GPU_MILLI, Long.toString(snapshot.healthyComputeMilli()));
    values.put(ShareGpuResources.GPU_MEMORY, Long.toString(snapshot.healthyMemoryMiB()));
    return values;
  }
}
