package io.sharegpu.api.request;

import java.util.List;

/** What {@link PodGpuRequestParser} makes of a pod: no GPU, a valid request, or its errors. */
public sealed interface ParsedRequest
    permits ParsedRequest.NoGpu, ParsedRequest.Valid, ParsedRequest.Invalid {

  /** The pod requests no sharegpu.io resources. */
  record NoGpu() implements ParsedRequest {}

  /** The pod's GPU request. */
  record Valid(PodGpuRequest request) implements ParsedRequest {}

  /** The pod requests GPUs but wrongly; each error names the container and the value. */
  record Invalid(List<String> errors) implements ParsedRequest {
    public Invalid {
      errors = List.copyOf(errors);
      if (errors.isEmpty()) {
        throw new IllegalArgumentException("an invalid request needs at least one error");
      }
    }
  }
}
