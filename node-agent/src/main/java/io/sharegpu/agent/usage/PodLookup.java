package io.sharegpu.agent.usage;

import java.util.Optional;

/** Finds a pod on this node by UID, and its container by container id. */
@FunctionalInterface
public interface PodLookup {

  /**
   * Returns the pod's namespace, name and the name of the container whose runtime id is {@code
   * containerId} (empty container name when unknown).
   */
  Optional<PodRef> find(String podUid, String containerId);
}
