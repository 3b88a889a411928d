package io.sharegpu.extender.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The answer to a preempt call ({@code ExtenderPreemptionResult}). */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExtenderPreemptionResult(
    @JsonProperty("NodeNameToMetaVictims")
        @Nullable Map<String, ExtenderPreemptionArgs.MetaVictims> nodeNameToMetaVictims) {}
