package io.sharegpu.agent.usage;

import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sharegpu.agent.gpu.GpuDevice;
import io.sharegpu.agent.gpu.GpuProcess;
import io.sharegpu.agent.gpu.GpuSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The agent's Prometheus metrics, refreshed from each snapshot:
 *
 * <ul>
 *   <li>{@code sharegpu_container_gpu_memory_used_bytes{namespace,pod,container,node,device_uuid}}
 *       — sum over the container's GPU processes (NVML's per-process used memory)
 *   <li>{@code sharegpu_gpu_memory_used_bytes}, {@code sharegpu_gpu_memory_total_bytes}, {@code
 *       sharegpu_gpu_utilization_ratio} (0..1; absent for MIG instances), {@code
 *       sharegpu_gpu_healthy} (1/0), each {@code {node,device_uuid,model}}
 *   <li>{@code sharegpu_gpu_unattributed_memory_used_bytes{node,device_uuid}} — processes in no pod
 *       (e.g. the MPS server, host processes)
 * </ul>
 */
public final class UsageMetrics {

  private final String nodeName;
  private final PodCgroups cgroups;
  private final PodLookup pods;
  private final MultiGauge containerMemory;
  private final MultiGauge unattributed;
  private final MultiGauge gpuUsed;
  private final MultiGauge gpuTotal;
  private final MultiGauge gpuUtilization;
  private final MultiGauge gpuHealthy;

  public UsageMetrics(
      PrometheusMeterRegistry registry, String nodeName, PodCgroups cgroups, PodLookup pods) {
    this.nodeName = nodeName;
    this.cgroups = cgroups;
    this.pods = pods;
    containerMemory =
        MultiGauge.builder("sharegpu.container.gpu.memory.used")
            .baseUnit("bytes")
            .description("GPU memory held by a container's processes")
            .register(registry);
    unattributed =
        MultiGauge.builder("sharegpu.gpu.unattributed.memory.used")
            .baseUnit("bytes")
            .description("GPU memory held by processes that belong to no pod")
            .register(registry);
    gpuUsed =
        MultiGauge.builder("sharegpu.gpu.memory.used")
            .baseUnit("bytes")
            .description("GPU memory in use")
            .register(registry);
    gpuTotal =
        MultiGauge.builder("sharegpu.gpu.memory.total")
            .baseUnit("bytes")
            .description("GPU memory")
            .register(registry);
    gpuUtilization =
        MultiGauge.builder("sharegpu.gpu.utilization")
            .baseUnit("ratio")
            .description("Fraction of the last sample period the GPU was busy")
            .register(registry);
    gpuHealthy =
        MultiGauge.builder("sharegpu.gpu.healthy")
            .description("1 when the GPU answers NVML, else 0")
            .register(registry);
  }

  /** Replaces every series with what the snapshot shows; vanished GPUs and pods disappear. */
  public void update(GpuSnapshot snapshot) {
    List<MultiGauge.Row<?>> used = new ArrayList<>();
    List<MultiGauge.Row<?>> total = new ArrayList<>();
    List<MultiGauge.Row<?>> util = new ArrayList<>();
    List<MultiGauge.Row<?>> healthy = new ArrayList<>();
    for (GpuDevice d : snapshot.devices()) {
      Tags tags = Tags.of("node", nodeName, "device_uuid", d.uuid(), "model", d.model());
      used.add(MultiGauge.Row.of(tags, d.memoryUsedBytes()));
      total.add(MultiGauge.Row.of(tags, d.memoryTotalBytes()));
      healthy.add(MultiGauge.Row.of(tags, d.healthy() ? 1 : 0));
      if (d.utilizationPercent() != null) {
        util.add(MultiGauge.Row.of(tags, d.utilizationPercent() / 100.0));
      }
    }
    gpuUsed.register(used, true);
    gpuTotal.register(total, true);
    gpuUtilization.register(util, true);
    gpuHealthy.register(healthy, true);

    Map<Tags, Long> byContainer = new LinkedHashMap<>();
    Map<Tags, Long> byDevice = new LinkedHashMap<>();
    for (GpuProcess p : snapshot.processes()) {
      Optional<PodRef> pod =
          cgroups.of(p.pid()).flatMap(pc -> pods.find(pc.podUid(), pc.containerId()));
      if (pod.isPresent()) {
        PodRef ref = pod.get();
        Tags tags =
            Tags.of(
                "namespace", ref.namespace(),
                "pod", ref.pod(),
                "container", ref.container(),
                "node", nodeName,
                "device_uuid", p.deviceUuid());
        byContainer.merge(tags, p.usedMemoryBytes(), Long::sum);
      } else {
        byDevice.merge(
            Tags.of("node", nodeName, "device_uuid", p.deviceUuid()),
            p.usedMemoryBytes(),
            Long::sum);
      }
    }
    containerMemory.register(rows(byContainer), true);
    unattributed.register(rows(byDevice), true);
  }

  private static List<MultiGauge.Row<?>> rows(Map<Tags, Long> values) {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    values.forEach((tags, value) -> rows.add(MultiGauge.Row.of(tags, value)));
    return rows;
  }
}
