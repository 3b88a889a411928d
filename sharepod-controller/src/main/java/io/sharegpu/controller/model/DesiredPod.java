package io.sharegpu.controller.model;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/** What {@link SharePodPods#desiredPod} makes of a SharePod: the pod to create, or why none. */
public sealed interface DesiredPod permits DesiredPod.Valid, DesiredPod.Invalid {

  /** The complete pod to create for the SharePod. */
  record Valid(Pod pod, GpuRequest request) implements DesiredPod {}

  /** The SharePod cannot become a pod; each error names the field and the value. */
  record Invalid(List<String> errors) implements DesiredPod {
    public Invalid {
      errors = List.copyOf(errors);
      if (errors.isEmpty()) {
        throw new IllegalArgumentException("an invalid SharePod needs at least one error");
      }
    }
  }

  /** Returns the errors, empty for a valid SharePod. */
  default List<String> errors() {
    return this instanceof Invalid invalid ? invalid.errors() : List.of();
  }
}
