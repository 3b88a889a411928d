package io.sharegpu.api.request;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The GPU request of a pod: one entry per GPU container (each its own allocation, in container
 * order) and the pod-wide placement constraints from its annotations.
 *
 * @param containers the GPU containers, at least one, names unique
 * @param models allowed GPU models (case-insensitive); empty means any
 * @param pinnedUuids GPUs the pod must use; empty means any
 * @param excludedUuids GPUs the pod must not use
 */
public record PodGpuRequest(
    List<ContainerGpuRequest> containers,
    List<String> models,
    List<String> pinnedUuids,
    List<String> excludedUuids) {

  public PodGpuRequest {
    containers = List.copyOf(containers);
    models = List.copyOf(models);
    pinnedUuids = List.copyOf(pinnedUuids);
    excludedUuids = List.copyOf(excludedUuids);
    if (containers.isEmpty()) {
      throw new IllegalArgumentException("a GPU request needs at least one GPU container");
    }
    Set<String> names = new HashSet<>();
    for (ContainerGpuRequest c : containers) {
      if (!names.add(c.container())) {
        throw new IllegalArgumentException("container " + c.container() + " appears twice");
      }
    }
  }

  /** Returns a request without placement constraints. */
  public static PodGpuRequest of(ContainerGpuRequest... containers) {
    return new PodGpuRequest(List.of(containers), List.of(), List.of(), List.of());
  }

  /** Returns the sum of computeMilli over the containers (the node-level resource sum). */
  public int totalComputeMilli() {
    return containers.stream().mapToInt(ContainerGpuRequest::computeMilli).sum();
  }

  /** Returns the names of the GPU containers, in order. */
  public List<String> containerNames() {
    return containers.stream().map(ContainerGpuRequest::container).toList();
  }
}
