package io.sharegpu.extender.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.NodeList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The answer to a filter call ({@code ExtenderFilterResult}). Exactly one of {@code Nodes} and
 * {@code NodeNames} is set, matching the request's mode; {@code Error} fails the whole attempt.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExtenderFilterResult(
    @JsonProperty("Nodes") @Nullable NodeList nodes,
    @JsonProperty("NodeNames") @Nullable List<String> nodeNames,
    @JsonProperty("FailedNodes") @Nullable Map<String, String> failedNodes,
    @JsonProperty("FailedAndUnresolvableNodes")
        @Nullable Map<String, String> failedAndUnresolvableNodes,
    @JsonProperty("Error") @Nullable String error) {

  /** Returns a whole-request failure. */
  public static ExtenderFilterResult error(String message) {
    return new ExtenderFilterResult(null, null, null, null, message);
  }
}
