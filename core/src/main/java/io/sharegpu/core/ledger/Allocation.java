package io.sharegpu.core.ledger;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The GPUs one pod holds on one node.
 *
 * @param podKey {@code namespace/name}
 * @param podUid the pod's UID (the ledger's key)
 * @param node the node name
 * @param containers one grant per GPU container
 * @param state reserved, bound or terminating; the GPUs are held in every state
 */
public record Allocation(
    String podKey,
    String podUid,
    String node,
    List<ContainerGrant> containers,
    AllocationState state) {

  public Allocation {
    containers = List.copyOf(containers);
    if (containers.isEmpty()) {
      throw new IllegalArgumentException("allocation of " + podKey + " has no container");
    }
    if (podUid.isEmpty()) {
      throw new IllegalArgumentException("allocation of " + podKey + ": pod uid is empty");
    }
  }

  /** Returns a copy in state {@code s}. */
  public Allocation withState(AllocationState s) {
    return s == state ? this : new Allocation(podKey, podUid, node, containers, s);
  }

  /** Returns the UUIDs of every GPU the pod holds, in grant order. */
  public Set<String> uuids() {
    Set<String> out = new LinkedHashSet<>();
    for (ContainerGrant c : containers) {
      for (GpuGrant g : c.gpus()) {
        out.add(g.uuid());
      }
    }
    return out;
  }
}
