package io.sharegpu.webhook.admission.spelling;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.request.GpuRequestRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tencent gpu-manager (tkestack/gpu-manager): per container {@code tencent.com/vcuda-core} in
 * hundredths of a GPU (1..99 a share of one GPU, 100 per whole GPU above that, only multiples of
 * 100) and {@code tencent.com/vcuda-memory} in units of 256 MiB; a share is capped at its request
 * (hard limit) unless the pod annotation {@code tencent.com/vcuda-core-limit} (hundredths) raises
 * the cap.
 */
public final class GpuManagerSpelling implements Spelling {

  static final String CORE = "tencent.com/vcuda-core";
  static final String MEMORY = "tencent.com/vcuda-memory";
  static final String CORE_LIMIT = "tencent.com/vcuda-core-limit";
  static final long MEMORY_UNIT_MIB = 256;

  private static final Set<String> RESOURCES = Set.of(CORE, MEMORY);

  @Override
  public Peer peer() {
    return Peer.GPU_MANAGER;
  }

  @Override
  public List<String> requestKeys(Pod pod) {
    return PodKeys.resourceKeys(PodKeys.containers(pod), RESOURCES);
  }

  @Override
  public Translation translate(Pod pod) {
    List<String> errors = new ArrayList<>();
    if (!PodKeys.resourceKeys(PodKeys.initContainers(pod), RESOURCES).isEmpty()) {
      errors.add("init containers cannot request gpu-manager resources through ShareGPU");
    }
    Map<String, Translation.Share> shares = new LinkedHashMap<>();
    Integer largestShare = null;
    for (Container container : PodKeys.containers(pod)) {
      String name = PodKeys.name(container);
      String where = "container \"" + name + "\": ";
      Long core = PodKeys.count(name, CORE, PodKeys.resource(container, CORE), errors);
      Long units = PodKeys.count(name, MEMORY, PodKeys.resource(container, MEMORY), errors);
      if (core == null && units == null) {
        continue;
      }
      if (core == null || core == 0) {
        errors.add(where + MEMORY + " needs " + CORE + " (gpu-manager asks both)");
        continue;
      }
      if (core > 100 && core % 100 != 0) {
        errors.add(
            where
                + CORE
                + " \""
                + core
                + "\" above 100 must be a multiple of 100 (whole GPUs), as gpu-manager requires");
        continue;
      }
      if (core >= 100) {
        shares.put(name, new Translation.Share(Math.toIntExact(core * 10), null));
        continue;
      }
      if (units == null || units == 0) {
        errors.add(
            where
                + CORE
                + " \""
                + core
                + "\" (a share) needs "
                + MEMORY
                + " (256 MiB units): ShareGPU will not guess the share's memory");
        continue;
      }
      int milli = Math.toIntExact(core * 10);
      shares.put(name, new Translation.Share(milli, units * MEMORY_UNIT_MIB));
      largestShare = largestShare == null ? milli : Math.max(largestShare, milli);
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    Set<String> translatedAnnotations = Set.of();
    String limit = PodKeys.annotations(pod).get(CORE_LIMIT);
    if (limit != null) {
      translatedAnnotations = Set.of(CORE_LIMIT);
      if (!limit.matches("[0-9]{1,3}") || Integer.parseInt(limit) > 100) {
        errors.add("annotation " + CORE_LIMIT + " \"" + limit + "\" must be 1..100");
      } else if (largestShare != null && Integer.parseInt(limit) * 10 < largestShare) {
        errors.add(
            "annotation "
                + CORE_LIMIT
                + " \""
                + limit
                + "\" is below the request "
                + largestShare / 10
                + " of "
                + CORE);
      } else if (largestShare != null) {
        annotations.put(
            ShareGpuAnnotations.GPU_LIMIT_MILLI, Integer.toString(Integer.parseInt(limit) * 10));
      }
    } else if (largestShare != null) {
      annotations.put(ShareGpuAnnotations.GPU_LIMIT_MILLI, largestShare.toString());
    }
    if (largestShare != null && limit == null && hasDifferentShares(shares)) {
      errors.add(
          "containers ask different "
              + CORE
              + " shares, each a hard cap in gpu-manager; ShareGPU has one cap per pod ("
              + ShareGpuAnnotations.GPU_LIMIT_MILLI
              + "); set "
              + CORE_LIMIT
              + " or give them the same share");
    }
    if (!errors.isEmpty()) {
      return new Translation.Refused(errors);
    }
    return new Translation.Translated(
        shares, annotations, RESOURCES, translatedAnnotations, Set.of());
  }

  private static boolean hasDifferentShares(Map<String, Translation.Share> shares) {
    return shares.values().stream()
            .filter(s -> !GpuRequestRules.isWholeGpus(s.milli()))
            .mapToInt(s -> s.milli())
            .distinct()
            .count()
        > 1;
  }
}
