package io.sharegpu.core.placement;

import java.util.List;
import java.util.Map;

/**
 * The nodes a pod fits and why it does not fit the others.
 *
 * @param feasible the nodes it fits, in the order asked
 * @param rejected the other nodes and why, in the order asked
 */
public record FilterResult(List<String> feasible, Map<String, Rejection> rejected) {

  public FilterResult {
    feasible = List.copyOf(feasible);
    rejected = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(rejected));
  }
}
