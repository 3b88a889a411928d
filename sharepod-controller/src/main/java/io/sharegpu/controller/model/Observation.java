package io.sharegpu.controller.model;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the reconciler saw of a SharePod's world, the input of {@link SharePodStatuses#nextStatus}.
 *
 * @param errors why the SharePod is invalid; empty when it is valid
 * @param pod the SharePod's pod, null when there is none
 * @param problemReason reason of a problem that kept the pod from being created (e.g. {@link
 *     SharePodStatuses#REASON_FAILED_CREATE}), null when none
 * @param problemMessage the problem in words, null when none
 * @param gpuModels GPU model by UUID, from the GPUNode of the pod's node (may be empty)
 * @param note something the status message should add about the pod, e.g. that spec.gpu changed
 *     after it was created; null when none
 * @param preemption kube-scheduler's preemption of the SharePod's pod (the one observed, or the
 *     last one, now gone) when it is to be reported now; null when none
 */
public record Observation(
    List<String> errors,
    @Nullable Pod pod,
    @Nullable String problemReason,
    @Nullable String problemMessage,
    Map<String, String> gpuModels,
    @Nullable String note,
    @Nullable Preemption preemption) {

  public Observation {
    errors = List.copyOf(errors);
    gpuModels = Map.copyOf(gpuModels);
    if ((problemReason == null) != (problemMessage == null)) {
      throw new IllegalArgumentException("a problem needs both a reason and a message");
    }
  }

  /** The SharePod has (or had, if now invalid) this pod. */
  public static Observation ofPod(Pod pod, List<String> errors, Map<String, String> gpuModels) {
    return new Observation(errors, pod, null, null, gpuModels, null, null);
  }

  /** The SharePod has no pod, and no pod is made because of these errors. */
  public static Observation invalid(List<String> errors) {
    return new Observation(errors, null, null, null, Map.of(), null, null);
  }

  /** The SharePod has no pod because creating it failed (reason, message). */
  public static Observation problem(String reason, String message) {
    return new Observation(List.of(), null, reason, message, Map.of(), null, null);
  }

  /** The SharePod has no pod (yet, or any more). */
  public static Observation noPod() {
    return new Observation(List.of(), null, null, null, Map.of(), null, null);
  }

  /** Returns this observation with {@code note} for the status message. */
  public Observation withNote(@Nullable String note) {
    return new Observation(errors, pod, problemReason, problemMessage, gpuModels, note, preemption);
  }

  /** Returns this observation with {@code preemption} to report. */
  public Observation withPreemption(@Nullable Preemption preemption) {
    return new Observation(errors, pod, problemReason, problemMessage, gpuModels, note, preemption);
  }
}
