package io.sharegpu.webhook.admission.spelling;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.ShareGpuAnnotations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * HAMi (Project-HAMi/HAMi, NVIDIA devices): per container {@code nvidia.com/gpu} (GPUs, default 1
 * when only memory or cores are given), {@code nvidia.com/gpumem} (MiB per GPU), {@code
 * nvidia.com/gpumem-percentage} (percent of each GPU's memory), {@code nvidia.com/gpucores}
 * (percent of each GPU's cores, a cap enforced in the container; unset = 0 = neither reserved nor
 * capped); memory unset = the whole GPU memory. Pod annotations {@code nvidia.com/use-gpuuuid},
 * {@code nvidia.com/nouse-gpuuuid} and {@code nvidia.com/use-gputype} translate to ShareGPU's pins
 * and models; {@code nvidia.com/nouse-gputype} and {@code nvidia.com/priority} have no ShareGPU
 * equivalent and are refused. docs/migration.md gives the table and the sources.
 */
public final class HamiSpelling implements Spelling {

  static final String GPU = "nvidia.com/gpu";
  static final String GPUMEM = "nvidia.com/gpumem";
  static final String GPUMEM_PERCENTAGE = "nvidia.com/gpumem-percentage";
  static final String GPUCORES = "nvidia.com/gpucores";
  static final String PRIORITY = "nvidia.com/priority";
  static final String USE_UUID = "nvidia.com/use-gpuuuid";
  static final String NOUSE_UUID = "nvidia.com/nouse-gpuuuid";
  static final String USE_TYPE = "nvidia.com/use-gputype";
  static final String NOUSE_TYPE = "nvidia.com/nouse-gputype";

  private static final Set<String> RESOURCES =
      new LinkedHashSet<>(List.of(GPU, GPUMEM, GPUMEM_PERCENTAGE, GPUCORES, PRIORITY));

  @Override
  public Peer peer() {
    return Peer.HAMI;
  }

  @Override
  public List<String> requestKeys(Pod pod) {
    return PodKeys.resourceKeys(PodKeys.containers(pod), RESOURCES);
  }

  @Override
  public Translation translate(Pod pod) {
    List<String> errors = new ArrayList<>();
    if (!PodKeys.resourceKeys(PodKeys.initContainers(pod), RESOURCES).isEmpty()) {
      errors.add(
          "init containers cannot request HAMi GPU resources through ShareGPU; "
              + "request them in the app containers");
    }
    Map<String, Translation.Share> shares = new LinkedHashMap<>();
    Set<Integer> limits = new TreeSet<>();
    for (Container container : PodKeys.containers(pod)) {
      String name = PodKeys.name(container);
      if (PodKeys.resource(container, PRIORITY) != null) {
        errors.add(
            "container \""
                + name
                + "\": "
                + PRIORITY
                + " (HAMi task priority) has no ShareGPU equivalent; remove it and use a "
                + "PriorityClass");
      }
      Long gpus = PodKeys.count(name, GPU, PodKeys.resource(container, GPU), errors);
      Long mem = PodKeys.count(name, GPUMEM, PodKeys.resource(container, GPUMEM), errors);
      Long pct =
          PodKeys.count(
              name, GPUMEM_PERCENTAGE, PodKeys.resource(container, GPUMEM_PERCENTAGE), errors);
      Long cores = PodKeys.count(name, GPUCORES, PodKeys.resource(container, GPUCORES), errors);
      if (gpus == null && mem == null && pct == null && cores == null) {
        continue;
      }
      long n = gpus == null ? 1 : gpus;
      long c = cores == null ? 0 : cores;
      String where = "container \"" + name + "\": ";
      if (n == 0) {
        if (mem != null || pct != null || cores != null) {
          errors.add(where + GPU + " is 0 but memory or cores are set; remove them or ask a GPU");
        }
        continue;
      }
      if (c > 100) {
        errors.add(where + GPUCORES + " \"" + c + "\" must be 0..100 (percent of one GPU)");
        continue;
      }
      if (pct != null && (pct < 1 || pct > 100)) {
        errors.add(where + GPUMEM_PERCENTAGE + " \"" + pct + "\" must be 1..100");
        continue;
      }
      if (mem != null && pct != null) {
        errors.add(
            where
                + GPUMEM
                + " and "
                + GPUMEM_PERCENTAGE
                + " are both set; HAMi takes one memory size per GPU, keep one of them");
        continue;
      }
      if (mem != null && mem == 0) {
        errors.add(where + GPUMEM + " \"0\" asks no memory; remove it for the whole GPU memory");
        continue;
      }
      boolean wholeMemory = mem == null && (pct == null || pct == 100);
      if (n > 1) {
        if ((c == 0 || c == 100) && wholeMemory) {
          shares.put(name, new Translation.Share(Math.toIntExact(n * 1000), null));
        } else {
          errors.add(
              where
                  + GPU
                  + " \""
                  + n
                  + "\" with a part of each GPU: ShareGPU shares at most one GPU per container; "
                  + "ask one GPU per container, or whole GPUs without "
                  + GPUMEM
                  + "/"
                  + GPUCORES);
        }
        continue;
      }
      if (c == 100 || (c == 0 && wholeMemory)) {
        // Exclusive cores, or all the memory: no other HAMi task fits beside it.
        shares.put(name, new Translation.Share(1000, null));
        continue;
      }
      if (c == 0) {
        if (mem == null) {
          errors.add(
              where
                  + GPUMEM_PERCENTAGE
                  + " \""
                  + pct
                  + "\" without "
                  + GPUCORES
                  + ": ShareGPU sizes memory in MiB or as the compute share; set "
                  + GPUMEM
                  + " in MiB");
          continue;
        }
        // Memory only: HAMi neither reserves nor caps the cores.
        shares.put(name, new Translation.Share(1, mem));
        limits.add(1000);
        continue;
      }
      int milli = Math.toIntExact(c * 10);
      if (mem != null) {
        shares.put(name, new Translation.Share(milli, mem));
      } else if (pct != null && pct == c) {
        shares.put(name, new Translation.Share(milli, null));
      } else {
        errors.add(
            where
                + GPUCORES
                + " \""
                + c
                + "\" "
                + (pct == null
                    ? "without " + GPUMEM + " gives the whole GPU memory in HAMi, which a share "
                    : "with " + GPUMEM_PERCENTAGE + " \"" + pct + "\" (not equal to the cores) ")
                + "cannot express; set "
                + GPUMEM
                + " in MiB");
        continue;
      }
      limits.add(milli);
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    if (limits.size() > 1) {
      errors.add(
          "containers ask different HAMi core caps "
              + limits
              + " (in thousandths); ShareGPU has one cap per pod ("
              + ShareGpuAnnotations.GPU_LIMIT_MILLI
              + "); give the shares the same "
              + GPUCORES);
    } else if (limits.size() == 1) {
      annotations.put(ShareGpuAnnotations.GPU_LIMIT_MILLI, limits.iterator().next().toString());
    }
    Map<String, String> podAnnotations = PodKeys.annotations(pod);
    Set<String> translatedAnnotations = new LinkedHashSet<>();
    copyList(
        podAnnotations,
        USE_UUID,
        ShareGpuAnnotations.GPU_UUIDS,
        annotations,
        translatedAnnotations);
    copyList(
        podAnnotations,
        NOUSE_UUID,
        ShareGpuAnnotations.GPU_EXCLUDE_UUIDS,
        annotations,
        translatedAnnotations);
    copyList(
        podAnnotations,
        USE_TYPE,
        ShareGpuAnnotations.GPU_MODELS,
        annotations,
        translatedAnnotations);
    if (podAnnotations.containsKey(NOUSE_TYPE)) {
      errors.add(
          "annotation "
              + NOUSE_TYPE
              + " (exclude GPU types) has no ShareGPU equivalent; list the allowed types in "
              + USE_TYPE
              + " instead");
    }
    if (!errors.isEmpty()) {
      return new Translation.Refused(errors);
    }
    return new Translation.Translated(
        shares, annotations, RESOURCES, translatedAnnotations, Set.of());
  }

  /** Copies a comma list annotation, trimming the entries as HAMi does. */
  private static void copyList(
      Map<String, String> from,
      String peerKey,
      String ourKey,
      Map<String, String> to,
      Set<String> translated) {
    String value = from.get(peerKey);
    if (value == null) {
      return;
    }
    List<String> items = new ArrayList<>();
    for (String item : value.split(",")) {
      if (!item.trim().isEmpty()) {
        items.add(item.trim());
      }
    }
    to.put(ourKey, String.join(",", items));
    translated.add(peerKey);
  }
}
