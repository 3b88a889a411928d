package io.sharegpu.kubectl.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins the node agents' samples with the pods' assignments: {@code
 * sharegpu_container_gpu_memory_used_bytes{namespace,pod,container,node,device_uuid}} per row,
 * {@code sharegpu_gpu_utilization_ratio{node,device_uuid}} for its GPU and the assigned memory from
 * the annotations.
 */
public final class Usage {

  static final String CONTAINER_MEMORY = "sharegpu_container_gpu_memory_used_bytes";
  static final String GPU_UTILIZATION = "sharegpu_gpu_utilization_ratio";

  private Usage() {}

  /** Returns one row per container and GPU, by namespace, pod, container and GPU. */
  public static List<UsageRow> rows(List<PromText.Sample> samples, List<PodReport> pods) {
    Map<String, Double> utilization = new HashMap<>();
    for (PromText.Sample s : samples) {
      if (GPU_UTILIZATION.equals(s.name())) {
        utilization.put(s.label("device_uuid"), s.value());
      }
    }
    Map<String, Long> assigned = new HashMap<>();
    for (PodReport p : pods) {
      for (PodReport.ContainerRow c : p.containers()) {
        long perGpu = c.gpuUuids().isEmpty() ? 0 : c.memoryMib() / c.gpuUuids().size();
        for (String uuid : c.gpuUuids()) {
          assigned.put(key(p.namespace(), p.name(), c.container(), uuid), perGpu);
        }
      }
    }
    List<UsageRow> rows = new ArrayList<>();
    for (PromText.Sample s : samples) {
      if (CONTAINER_MEMORY.equals(s.name())) {
        String uuid = s.label("device_uuid");
        rows.add(
            new UsageRow(
                s.label("namespace"),
                s.label("pod"),
                s.label("container"),
                s.label("node"),
                uuid,
                s.value(),
                assigned.getOrDefault(
                    key(s.label("namespace"), s.label("pod"), s.label("container"), uuid), 0L),
                utilization.getOrDefault(uuid, -1.0)));
      }
    }
    rows.sort(
        Comparator.comparing(UsageRow::namespace)
            .thenComparing(UsageRow::pod)
            .thenComparing(UsageRow::container)
            .thenComparing(UsageRow::gpuUuid));
    return rows;
  }

  private static String key(String ns, String pod, String container, String uuid) {
    return ns + "/" + pod + "/" + container + "/" + uuid;
  }
}
