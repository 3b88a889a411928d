package io.sharegpu.extender.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One entry of a prioritize answer ({@code HostPriority}); the answer itself is a JSON array of
 * these. {@code Score} is 0..{@link #MAX_EXTENDER_PRIORITY}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HostPriority(@JsonProperty("Host") String host, @JsonProperty("Score") long score) {

  /** kube-scheduler's {@code MaxExtenderPriority}. */
  public static final int MAX_EXTENDER_PRIORITY = 10;
}
