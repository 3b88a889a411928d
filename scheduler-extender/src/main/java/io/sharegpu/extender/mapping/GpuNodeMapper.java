package io.sharegpu.extender.mapping;

import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Translates a GPUNode (the api module's resource) into core's node. */
public final class GpuNodeMapper {

  private GpuNodeMapper() {}

  /**
   * Converts a GPUNode's status to core's node (MIG instances included), with the GPUs its {@code
   * spec.cordonedGpus} lists cordoned: a MIG instance is cordoned when it or its parent GPU is
   * listed (a card to be replaced takes its instances with it).
   */
  public static GpuNode toGpuNode(GPUNode g) {
    Map<String, String> cordons = cordons(g);
    List<Gpu> gpus = new ArrayList<>();
    if (g.getStatus() != null) {
      for (GpuStatus s : g.getStatus().getGpus()) {
        if (s.getUuid() == null || s.getUuid().isBlank()) {
          continue;
        }
        int compute = s.getComputeMilli() <= 0 ? 1000 : Math.min(1000, s.getComputeMilli());
        gpus.add(
            new Gpu(
                s.getUuid(),
                Math.max(0, s.getIndex()),
                s.getModel() == null ? "unknown" : s.getModel(),
                Math.max(0, s.getMemoryMiB()),
                compute,
                s.isHealthy(),
                s.getParentUuid(),
                s.getMigProfile(),
                cordons.isEmpty() ? null : cordonReason(cordons, s)));
      }
    }
    return new GpuNode(g.getMetadata().getName(), gpus, 0, 0);
  }

  /** UUID → reason ("" without one) of the GPUs the spec cordons; empty (shared) when none. */
  private static Map<String, String> cordons(GPUNode g) {
    GPUNodeSpec spec = g.getSpec();
    if (spec == null || spec.getCordonedGpus() == null || spec.getCordonedGpus().isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>();
    for (GpuCordon c : spec.getCordonedGpus()) {
      if (c != null && c.getUuid() != null && !c.getUuid().isBlank()) {
        out.putIfAbsent(c.getUuid().strip(), c.getReason() == null ? "" : c.getReason());
      }
    }
    return out;
  }

  private static @Nullable String cordonReason(Map<String, String> cordons, GpuStatus s) {
    String own = cordons.get(s.getUuid());
    if (own != null || s.getParentUuid() == null) {
      return own;
    }
    return cordons.get(s.getParentUuid());
  }
}
