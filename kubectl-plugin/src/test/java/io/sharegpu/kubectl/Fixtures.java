package io.sharegpu.kubectl;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** GPUNodes and pods as the API server returns them, with annotations as the extender writes. */
public final class Fixtures {

  public static final long H100_MIB = 81559;

  private Fixtures() {}

  /** A GPUNode named {@code name} with {@code count} H100s {@code GPU-<name>-<i>}. */
  public static GPUNode gpuNode(String name, int count) {
    GPUNode n = new GPUNode();
    n.setMetadata(new ObjectMetaBuilder().withName(name).build());
    n.setSpec(new GPUNodeSpec(name));
    GPUNodeStatus status = new GPUNodeStatus();
    for (int i = 0; i < count; i++) {
      status.getGpus().add(new GpuStatus(uuid(name, i), i, "NVIDIA H100 80GB HBM3", H100_MIB));
    }
    status.setEnforcement(GPUNodeStatus.ENFORCEMENT_MPS);
    n.setStatus(status);
    return n;
  }

  /** Returns {@code GPU-<node>-<index>}. */
  public static String uuid(String node, int index) {
    return "GPU-" + node + "-" + index;
  }

  /** Cordons {@code uuid} on {@code n}. */
  public static GPUNode cordoned(GPUNode n, String uuid, String reason) {
    n.getSpec().getCordonedGpus().add(new GpuCordon(uuid, reason, "2026-12-05T08:00:00Z"));
    return n;
  }

  /**
   * A pod with one container "main" requesting {@code milli} and {@code memoryMib}, limit {@code
   * limitMilli}, bound to {@code node} on {@code gpus} with the extender's annotations.
   */
  public static Pod assignedPod(
      String ns,
      String name,
      String node,
      int milli,
      long memoryMib,
      int limitMilli,
      String... gpus) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (limitMilli != milli && milli < 1000) {
      annotations.put(ShareGpuAnnotations.GPU_LIMIT_MILLI, Integer.toString(limitMilli));
    }
    long perGpu = memoryMib / gpus.length;
    annotations.putAll(
        AssignmentAnnotations.encode(
            new PodAssignment(
                node, List.of(new ContainerAssignment("main", List.of(gpus), perGpu, limitMilli))),
            Instant.parse("2026-12-05T08:00:00Z")));
    return pod(ns, name, node, milli, memoryMib, annotations);
  }

  /** A pod requesting {@code milli}/{@code memoryMib} in container "main", with annotations. */
  public static Pod pod(
      String ns, String name, String node, int milli, long memoryMib, Map<String, String> ann) {
    Map<String, Quantity> limits = new LinkedHashMap<>();
    limits.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(milli)));
    if (memoryMib > 0) {
      limits.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(memoryMib)));
    }
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withAnnotations(ann)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(ShareGpuAnnotations.SCHEDULER_NAME)
        .withNodeName(node.isEmpty() ? null : node)
        .withContainers(
            new ContainerBuilder()
                .withName("main")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .withLimits(limits)
                .endResources()
                .build())
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }
}
