package io.sharegpu.extender.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body of kube-scheduler's filter and prioritize calls ({@code ExtenderArgs} in
 * k8s.io/kube-scheduler/extender/v1). With {@code nodeCacheCapable: true} only {@code NodeNames} is
 * set; otherwise only {@code Nodes}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExtenderArgs(
    @JsonProperty("Pod") @Nullable Pod pod,
    @JsonProperty("Nodes") @Nullable NodeList nodes,
    @JsonProperty("NodeNames") @Nullable List<String> nodeNames) {

  /** Returns the candidate node names from whichever of the two fields is set. */
  public List<String> candidateNames() {
    if (nodeNames != null) {
      return nodeNames;
    }
    if (nodes != null && nodes.getItems() != null) {
      return nodes.getItems().stream().map(n -> n.getMetadata().getName()).toList();
    }
    return List.of();
  }

  /** Returns true when the scheduler sent full Node objects (nodeCacheCapable: false). */
  public boolean sentNodeObjects() {
    return nodeNames == null && nodes != null;
  }
}
