package io.sharegpu.extender.mapping;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.PodGpuRequest;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Translates between the api module's pod request/assignment and core's demand/allocation. */
public final class DemandMapper {

  private DemandMapper() {}

  /** Returns {@code namespace/name}, an absent part empty. */
  public static String podKey(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    return (ns == null ? "" : ns) + "/" + (name == null ? "" : name);
  }

  /** Returns core's demand for a parsed, valid request. */
  public static PodDemand toDemand(String podKey, String podUid, PodGpuRequest request) {
    List<GpuDemand> containers = new ArrayList<>();
    for (ContainerGpuRequest c : request.containers()) {
      containers.add(new GpuDemand(c.container(), c.computeMilli(), c.memoryMib(), c.limitMilli()));
    }
    return new PodDemand(
        podKey,
        podUid,
        containers,
        new HashSet<>(request.models()),
        new HashSet<>(request.pinnedUuids()),
        new HashSet<>(request.excludedUuids()),
        0,
        0);
  }

  /** Returns the assignment annotations' view of a chosen allocation. */
  public static PodAssignment toAssignment(Allocation a) {
    List<ContainerAssignment> containers = new ArrayList<>();
    for (ContainerGrant c : a.containers()) {
      List<String> uuids = c.gpus().stream().map(GpuGrant::uuid).toList();
      long perGpu = c.gpus().isEmpty() ? 0 : c.gpus().get(0).memoryMib();
      int limit = c.limitMilli() <= 0 ? 1000 : Math.min(1000, c.limitMilli());
      containers.add(new ContainerAssignment(c.container(), uuids, perGpu, limit));
    }
    return new PodAssignment(a.node(), containers);
  }

  /**
   * Rebuilds the allocation a bound pod holds from its assignment annotations and its request.
   * Empty if a named GPU is not on the node or a container of the request has no assignment.
   */
  public static Optional<Allocation> fromAssignment(
      String podKey,
      String podUid,
      PodGpuRequest request,
      PodAssignment assignment,
      GpuNode node,
      AllocationState state) {
    Map<String, Gpu> gpus =
        node.gpus().stream().collect(Collectors.toMap(Gpu::uuid, Function.identity()));
    Map<String, ContainerAssignment> byName =
        assignment.containers().stream()
            .collect(Collectors.toMap(ContainerAssignment::container, Function.identity()));
    List<ContainerGrant> grants = new ArrayList<>();
    for (ContainerGpuRequest c : request.containers()) {
      ContainerAssignment ca = byName.get(c.container());
      if (ca == null) {
        return Optional.empty();
      }
      List<GpuGrant> list = new ArrayList<>();
      for (String uuid : ca.gpuUuids()) {
        Gpu gpu = gpus.get(uuid);
        if (gpu == null) {
          return Optional.empty();
        }
        if (c.wholeGpus()) {
          list.add(new GpuGrant(uuid, 1000, gpu.memoryMib()));
        } else {
          long mem = ca.memoryMibPerGpu() > 0 ? ca.memoryMibPerGpu() : gpu.memoryMib();
          list.add(new GpuGrant(uuid, c.computeMilli(), mem));
        }
      }
      grants.add(new ContainerGrant(c.container(), list, c.limitMilli()));
    }
    return Optional.of(new Allocation(podKey, podUid, node.name(), grants, state));
  }
}
