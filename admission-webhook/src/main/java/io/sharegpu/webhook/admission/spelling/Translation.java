package io.sharegpu.webhook.admission.spelling;

import io.sharegpu.api.request.GpuRequestRules;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** What a {@link Spelling} makes of a pod: ShareGPU's request, or the reasons it cannot. */
public sealed interface Translation permits Translation.Translated, Translation.Refused {

  /**
   * One container's share in ShareGPU's units.
   *
   * @param milli {@code sharegpu.io/gpu-milli}: 1..999 a share of one GPU, or whole GPUs x 1000
   *     ({@link GpuRequestRules#computeProblem})
   * @param memoryMib {@code sharegpu.io/gpu-memory} in MiB, or null for ShareGPU's default (the
   *     share of the GPU's memory)
   */
  record Share(int milli, @Nullable Long memoryMib) {
    public Share {
      GpuRequestRules.computeProblem(milli)
          .ifPresent(
              p -> {
                throw new IllegalArgumentException("milli " + milli + p);
              });
      if (memoryMib != null && memoryMib <= 0) {
        throw new IllegalArgumentException("memoryMib must be positive, got " + memoryMib);
      }
    }
  }

  /**
   * The pod's request in ShareGPU's spelling.
   *
   * @param shares by container name; containers not named keep no GPU
   * @param annotations ShareGPU annotations to set (limit, models, UUIDs)
   * @param resourceKeys the peer's resource names to remove from every container
   * @param annotationKeys the peer's annotations to remove (translated ones)
   * @param labelKeys the peer's labels to remove (translated ones)
   */
  record Translated(
      Map<String, Share> shares,
      Map<String, String> annotations,
      Set<String> resourceKeys,
      Set<String> annotationKeys,
      Set<String> labelKeys)
      implements Translation {
    public Translated {
      shares = Map.copyOf(shares);
      annotations = Map.copyOf(annotations);
      resourceKeys = Set.copyOf(resourceKeys);
      annotationKeys = Set.copyOf(annotationKeys);
      labelKeys = Set.copyOf(labelKeys);
    }
  }

  /**
   * The pod cannot be translated without guessing.
   *
   * @param reasons at least one, in the webhook's denial style (key, value, what to do)
   */
  record Refused(List<String> reasons) implements Translation {
    public Refused {
      reasons = List.copyOf(reasons);
      if (reasons.isEmpty()) {
        throw new IllegalArgumentException("a refusal needs at least one reason");
      }
    }
  }
}
