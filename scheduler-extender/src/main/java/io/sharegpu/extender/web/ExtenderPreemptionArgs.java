package io.sharegpu.extender.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The body of a preempt call ({@code ExtenderPreemptionArgs}). ShareGPU does not configure {@code
 * preemptVerb}; the type exists so the wire format is complete and tested.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExtenderPreemptionArgs(
    @JsonProperty("Pod") @Nullable Pod pod,
    @JsonProperty("NodeNameToVictims") @Nullable Map<String, Victims> nodeNameToVictims,
    @JsonProperty("NodeNameToMetaVictims")
        @Nullable Map<String, MetaVictims> nodeNameToMetaVictims) {

  /** {@code Victims}: full pods. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Victims(
      @JsonProperty("Pods") @Nullable List<Pod> pods,
      @JsonProperty("NumPDBViolations") long numPdbViolations) {}

  /** {@code MetaVictims}: pods by UID only. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record MetaVictims(
      @JsonProperty("Pods") @Nullable List<MetaPod> pods,
      @JsonProperty("NumPDBViolations") long numPdbViolations) {}

  /** {@code MetaPod}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record MetaPod(@JsonProperty("UID") String uid) {}
}
