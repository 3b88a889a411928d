package io.sharegpu.kubectl.report;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The extender's answer to {@code GET /debug/pods/{namespace}/{name}/explain} (its {@code
 * PodExplanation}): per node whether the pod fits, the reason in the words of the FailedScheduling
 * Events, the per-GPU reasons and what preemption would do there.
 */
public record Explanation(
    String pod, List<String> requestErrors, @Nullable String heldOn, List<NodeExplanation> nodes) {

  public Explanation {
    requestErrors = requestErrors == null ? List.of() : List.copyOf(requestErrors);
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }

  /**
   * One node: {@code preemption} is e.g. {@code would preempt ns/a} or {@code no preemption: …}.
   */
  public record NodeExplanation(
      String node, boolean fits, String reason, List<String> gpus, @Nullable String preemption) {

    public NodeExplanation {
      gpus = gpus == null ? List.of() : List.copyOf(gpus);
    }
  }
}
