package io.sharegpu.core.model;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A node and its GPUs.
 *
 * @param name the Kubernetes node name
 * @param gpus the GPUs (whole GPUs, MIG instances, and MIG-enabled parents), UUIDs unique
 * @param cpuMilli host CPU in thousandths of a core; 0 = not tracked
 * @param memoryMib host memory in MiB; 0 = not tracked
 */
public record GpuNode(String name, List<Gpu> gpus, long cpuMilli, long memoryMib) {

  public GpuNode {
    if (name.isBlank()) {
      throw new IllegalArgumentException("node name must not be blank");
    }
    gpus = List.copyOf(gpus);
    Set<String> seen = new HashSet<>();
    for (Gpu g : gpus) {
      if (!seen.add(g.uuid())) {
        throw new IllegalArgumentException("node " + name + " lists GPU " + g.uuid() + " twice");
      }
    }
    if (cpuMilli < 0 || memoryMib < 0) {
      throw new IllegalArgumentException("node " + name + ": host CPU and memory must be >= 0");
    }
  }

  /** Returns a node whose host CPU and memory are not tracked. */
  public static GpuNode of(String name, List<Gpu> gpus) {
    return new GpuNode(name, gpus, 0, 0);
  }

  /** Returns the GPU with this UUID, if the node has it. */
  public Optional<Gpu> gpu(String uuid) {
    for (Gpu g : gpus) {
      if (g.uuid().equals(uuid)) {
        return Optional.of(g);
      }
    }
    return Optional.empty();
  }
}
