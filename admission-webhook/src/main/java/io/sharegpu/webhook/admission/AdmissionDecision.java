package io.sharegpu.webhook.admission;

import java.util.List;

/**
 * What the webhook answers for one pod: allow it as it is, allow it with a JSON Patch, or deny it
 * with a message for the user.
 */
public sealed interface AdmissionDecision
    permits AdmissionDecision.NotGpu,
        AdmissionDecision.Unchanged,
        AdmissionDecision.Patched,
        AdmissionDecision.Denied {

  /** Returns the value of the {@code result} tag of the admission metric. */
  String result();

  /** The pod requests no sharegpu.io resources: allowed, not touched. */
  record NotGpu() implements AdmissionDecision {
    @Override
    public String result() {
      return "not_gpu";
    }
  }

  /** A valid GPU pod that already carries everything ShareGPU injects: allowed, not touched. */
  record Unchanged() implements AdmissionDecision {
    @Override
    public String result() {
      return "allowed";
    }
  }

  /**
   * A valid GPU pod, allowed with these JSON Patch operations (RFC 6902).
   *
   * @param patch at least one operation, applied in order
   */
  record Patched(List<PatchOperation> patch) implements AdmissionDecision {
    public Patched {
      patch = List.copyOf(patch);
      if (patch.isEmpty()) {
        throw new IllegalArgumentException("a patch needs at least one operation");
      }
    }

    @Override
    public String result() {
      return "patched";
    }
  }

  /**
   * The pod is denied; {@code reasons} name the container, field or annotation and the value.
   *
   * @param reasons at least one reason
   */
  record Denied(List<String> reasons) implements AdmissionDecision {
    public Denied {
      reasons = List.copyOf(reasons);
      if (reasons.isEmpty()) {
        throw new IllegalArgumentException("a denial needs at least one reason");
      }
    }

    /** Returns the reasons joined with "; ", the message kube-apiserver shows the user. */
    public String message() {
      return String.join("; ", reasons);
    }

    @Override
    public String result() {
      return "denied";
    }
  }
}
