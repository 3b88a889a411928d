package io.sharegpu.webhook.admission.spelling;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.ShareGpuAnnotations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Aliyun gpushare (AliyunContainerService/gpushare-scheduler-extender): per container {@code
 * aliyun.com/gpu-mem} in GiB (the device plugin's default unit), placed on one GPU, with no compute
 * reservation nor cap. Translates to the smallest compute share (1 thousandth) with the cap lifted
 * to the whole GPU and the memory in MiB. {@code aliyun.com/gpu-count} (several GPUs per container
 * in later releases) is refused.
 */
public final class GpuShareSpelling implements Spelling {

  static final String GPU_MEM = "aliyun.com/gpu-mem";
  static final String GPU_COUNT = "aliyun.com/gpu-count";
  static final long GIB_MIB = 1024;

  private static final Set<String> RESOURCES = Set.of(GPU_MEM, GPU_COUNT);

  @Override
  public Peer peer() {
    return Peer.GPUSHARE;
  }

  @Override
  public List<String> requestKeys(Pod pod) {
    return PodKeys.resourceKeys(PodKeys.containers(pod), RESOURCES);
  }

  @Override
  public Translation translate(Pod pod) {
    List<String> errors = new ArrayList<>();
    if (!PodKeys.resourceKeys(PodKeys.initContainers(pod), RESOURCES).isEmpty()) {
      errors.add("init containers cannot request gpushare resources through ShareGPU");
    }
    Map<String, Translation.Share> shares = new LinkedHashMap<>();
    for (Container container : PodKeys.containers(pod)) {
      String name = PodKeys.name(container);
      String where = "container \"" + name + "\": ";
      if (PodKeys.resource(container, GPU_COUNT) != null) {
        errors.add(
            where
                + GPU_COUNT
                + " (memory spread over several GPUs) is not supported; ask one GPU's memory in "
                + GPU_MEM);
        continue;
      }
      Long gib = PodKeys.count(name, GPU_MEM, PodKeys.resource(container, GPU_MEM), errors);
      if (gib == null) {
        continue;
      }
      if (gib == 0) {
        errors.add(where + GPU_MEM + " \"0\" asks no GPU memory; remove it");
        continue;
      }
      shares.put(name, new Translation.Share(1, gib * GIB_MIB));
    }
    if (!errors.isEmpty()) {
      return new Translation.Refused(errors);
    }
    Map<String, String> annotations =
        shares.isEmpty() ? Map.of() : Map.of(ShareGpuAnnotations.GPU_LIMIT_MILLI, "1000");
    return new Translation.Translated(shares, annotations, RESOURCES, Set.of(), Set.of());
  }
}
