package io.sharegpu.extender.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;

/** The body of a bind call ({@code ExtenderBindingArgs}). */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExtenderBindingArgs(
    @JsonProperty("PodName") @Nullable String podName,
    @JsonProperty("PodNamespace") @Nullable String podNamespace,
    @JsonProperty("PodUID") @Nullable String podUid,
    @JsonProperty("Node") @Nullable String node) {}
