package io.sharegpu.api.assignment;

import java.util.List;

/**
 * The GPUs the extender assigned to a pod: its node and one entry per GPU container, in container
 * order.
 */
public record PodAssignment(String nodeName, List<ContainerAssignment> containers) {

  public PodAssignment {
    containers = List.copyOf(containers);
    if (nodeName.isEmpty()) {
      throw new IllegalArgumentException("node name must not be empty");
    }
    if (containers.isEmpty()) {
      throw new IllegalArgumentException("an assignment needs at least one container");
    }
  }

  /** Returns the GPU memory of the pod over all containers, in MiB. */
  public long memoryMib() {
    return containers.stream().mapToLong(ContainerAssignment::memoryMib).sum();
  }

  /** Returns each assigned GPU once, in container order. */
  public List<String> gpuUuids() {
    return containers.stream().flatMap(c -> c.gpuUuids().stream()).distinct().toList();
  }
}
