package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.ContainerGrant;
import java.util.List;

/**
 * A pod evaluated on one node: the grants it would get and the policy's score, or {@link #NO_FIT}.
 */
record Outcome(List<ContainerGrant> grants, double score) {
  /** The pod does not fit the node. */
  static final Outcome NO_FIT = new Outcome(List.of(), Double.NaN);

  boolean fits() {
    return this != NO_FIT;
  }
}
