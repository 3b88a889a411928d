package io.sharegpu.extender.mapping;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.request.PodDemand;
import java.util.List;

/**
 * Reads what a pod asks of the GPUs: the one place the extender turns a Pod into core's {@link
 * PodDemand} (filter, prioritize, preempt, bind, the informer feed, the debug views).
 */
public final class PodDemands {

  private PodDemands() {}

  /** What a pod asks of the GPUs: nothing, something invalid, or a demand. */
  public sealed interface Outcome permits NoGpu, Invalid, Demand {}

  /** The pod asks for no {@code sharegpu.io/} resource. */
  public record NoGpu() implements Outcome {}

  /**
   * The pod's GPU request cannot be placed as written.
   *
   * @param message the whole-request error as the verbs answer it, e.g. {@code invalid GPU request:
   *     gpu-milli 1500 is not a multiple of 1000}
   * @param errors the request's errors one by one (the debug explanation lists them)
   */
  public record Invalid(String message, List<String> errors) implements Outcome {
    public Invalid {
      errors = List.copyOf(errors);
    }
  }

  /**
   * A valid request.
   *
   * @param demand core's demand, keyed {@code namespace/name} and the pod's UID
   * @param request the parsed request (container names, whole-GPU flags for assignments)
   */
  public record Demand(PodDemand demand, PodGpuRequest request) implements Outcome {}

  private static final NoGpu NO_GPU = new NoGpu();

  /** Reads {@code pod} (which must have metadata). */
  public static Outcome of(Pod pod) {
    ParsedRequest parsed = PodGpuRequestParser.parse(pod);
    if (parsed instanceof ParsedRequest.Invalid invalid) {
      return new Invalid(
          "invalid GPU request: " + String.join("; ", invalid.errors()), invalid.errors());
    }
    if (!(parsed instanceof ParsedRequest.Valid valid)) {
      return NO_GPU;
    }
    String uid = pod.getMetadata().getUid();
    if (uid == null || uid.isEmpty()) {
      return new Invalid("pod has no metadata.uid", List.of("pod has no metadata.uid"));
    }
    try {
      return new Demand(
          DemandMapper.toDemand(DemandMapper.podKey(pod), uid, valid.request()), valid.request());
    } catch (IllegalArgumentException e) {
      String why = String.valueOf(e.getMessage());
      return new Invalid("invalid GPU request: " + why, List.of(why));
    }
  }
}
