package io.sharegpu.kubectl.report;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns GPUNodes and pods as the API server returns them into reports: what sits on each GPU and
 * what each pod was given. Counts the way the extender rebuilds its ledger from the same
 * annotations: a share takes its request's compute and its pinned memory (the whole GPU's memory
 * when none is pinned); a whole GPU takes all of it. Pods that finished (Succeeded, Failed) hold
 * nothing; terminating ones still do.
 *
 * <p>For example a GPUNode with one 81559 MiB H100 and a pod requesting {@code gpu-milli: 250}
 * assigned {@code GPU-a} with {@code assigned-memory-mib: 10240} gives one {@link GpuReport} with
 * usedMilli 250 and usedMemoryMib 10240 listing that pod.
 */
public final class Reports {

  private Reports() {}

  /** Returns one report per GPUNode, by name, each GPU with the pods placed on it. */
  public static List<NodeReport> nodes(List<GPUNode> gpuNodes, List<Pod> pods) {
    Map<String, List<PodOnGpu>> byGpu = new HashMap<>();
    Map<String, Long> gpuMemory = new HashMap<>();
    for (GPUNode n : gpuNodes) {
      if (n.getStatus() != null) {
        for (GpuStatus g : n.getStatus().getGpus()) {
          if (g.getUuid() != null) {
            gpuMemory.put(g.getUuid(), g.getMemoryMiB());
          }
        }
      }
    }
    for (Pod pod : pods) {
      for (PodReport.ContainerRow c : podRows(pod)) {
        boolean whole = c.shareMilli() >= ContainerGpuRequest.WHOLE_GPU_MILLI;
        long perGpu = c.gpuUuids().isEmpty() ? 0 : c.memoryMib() / c.gpuUuids().size();
        for (String uuid : c.gpuUuids()) {
          long capacity = gpuMemory.getOrDefault(uuid, 0L);
          long memory = whole || perGpu == 0 ? capacity : perGpu;
          int share = whole ? ContainerGpuRequest.WHOLE_GPU_MILLI : c.shareMilli();
          byGpu
              .computeIfAbsent(uuid, u -> new ArrayList<>())
              .add(
                  new PodOnGpu(
                      pod.getMetadata().getNamespace(),
                      pod.getMetadata().getName(),
                      c.container(),
                      share,
                      c.limitMilli(),
                      memory));
        }
      }
    }
    List<NodeReport> out = new ArrayList<>();
    for (GPUNode n : gpuNodes) {
      out.add(node(n, byGpu));
    }
    out.sort(Comparator.comparing(NodeReport::name));
    return out;
  }

  private static NodeReport node(GPUNode n, Map<String, List<PodOnGpu>> byGpu) {
    Map<String, GpuReport.Cordon> cordons = new HashMap<>();
    if (n.getSpec() != null) {
      for (GpuCordon c : n.getSpec().getCordonedGpus()) {
        if (c.getUuid() != null) {
          cordons.put(
              c.getUuid(), new GpuReport.Cordon(orEmpty(c.getReason()), orEmpty(c.getTime())));
        }
      }
    }
    List<GpuReport> gpus = new ArrayList<>();
    if (n.getStatus() != null) {
      for (GpuStatus g : n.getStatus().getGpus()) {
        String uuid = orEmpty(g.getUuid());
        List<PodOnGpu> on = new ArrayList<>(byGpu.getOrDefault(uuid, List.of()));
        on.sort(Comparator.comparing(PodOnGpu::key).thenComparing(PodOnGpu::container));
        gpus.add(
            new GpuReport(
                g.getIndex(),
                uuid,
                orEmpty(g.getModel()),
                g.getMigProfile(),
                g.getParentUuid(),
                g.isHealthy(),
                g.getComputeMilli(),
                g.getMemoryMiB(),
                on.stream().mapToInt(PodOnGpu::shareMilli).sum(),
                on.stream().mapToLong(PodOnGpu::memoryMib).sum(),
                on,
                cordons.get(uuid)));
      }
    }
    gpus.sort(Comparator.comparingInt(GpuReport::index).thenComparing(GpuReport::uuid));
    String enforcement = n.getStatus() == null ? null : n.getStatus().getEnforcement();
    String heartbeat = n.getStatus() == null ? null : n.getStatus().getHeartbeatTime();
    return new NodeReport(n.getMetadata().getName(), enforcement, heartbeat, gpus);
  }

  /** Returns the pods that hold GPUs, by namespace and name, with their assignment. */
  public static List<PodReport> pods(List<Pod> pods) {
    List<PodReport> out = new ArrayList<>();
    for (Pod pod : pods) {
      List<PodReport.ContainerRow> rows = podRows(pod);
      if (!rows.isEmpty()) {
        out.add(
            new PodReport(
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                nodeOf(pod),
                phaseOf(pod),
                rows));
      }
    }
    out.sort(Comparator.comparing(PodReport::namespace).thenComparing(PodReport::name));
    return out;
  }

  /**
   * Returns the GPU containers of a pod that holds GPUs, each with its assignment; empty for a pod
   * that was never assigned or has finished.
   */
  public static List<PodReport.ContainerRow> podRows(Pod pod) {
    String phase = phaseOf(pod);
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return List.of();
    }
    Map<String, String> annotations =
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
    if (annotations.keySet().stream()
        .noneMatch(k -> k.startsWith(ShareGpuAnnotations.ASSIGNED_GPUS))) {
      return List.of();
    }
    Map<String, ContainerGpuRequest> requests = new HashMap<>();
    List<String> names = new ArrayList<>();
    if (PodGpuRequestParser.parse(pod) instanceof ParsedRequest.Valid valid) {
      for (ContainerGpuRequest c : valid.request().containers()) {
        requests.put(c.container(), c);
        names.add(c.container());
      }
    } else if (pod.getSpec() != null && pod.getSpec().getContainers() != null) {
      pod.getSpec().getContainers().stream().map(Container::getName).forEach(names::add);
    }
    Optional<PodAssignment> assignment =
        AssignmentAnnotations.decode(nodeOf(pod), annotations, names);
    if (assignment.isEmpty()) {
      return List.of();
    }
    boolean single = assignment.get().containers().size() == 1;
    List<PodReport.ContainerRow> rows = new ArrayList<>();
    for (ContainerAssignment a : assignment.get().containers()) {
      ContainerGpuRequest request = requests.get(a.container());
      int share = request == null ? a.limitMilli() : request.computeMilli();
      int limit = request == null ? a.limitMilli() : request.limitMilli();
      rows.add(
          new PodReport.ContainerRow(
              a.container(),
              a.gpuUuids(),
              share,
              limit,
              a.memoryMib(),
              mps(annotations, ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE, a, single),
              mps(annotations, ShareGpuAnnotations.MPS_PINNED_MEM_LIMIT, a, single)));
    }
    return rows;
  }

  private static String mps(
      Map<String, String> annotations, String key, ContainerAssignment a, boolean single) {
    String value = annotations.get(ShareGpuAnnotations.forContainer(key, a.container()));
    if (value == null && single) {
      value = annotations.get(key);
    }
    return orEmpty(value);
  }

  private static String nodeOf(Pod pod) {
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return orEmpty(node);
  }

  private static String phaseOf(Pod pod) {
    return pod.getStatus() == null ? "" : orEmpty(pod.getStatus().getPhase());
  }

  private static String orEmpty(@Nullable String s) {
    return s == null ? "" : s;
  }
}
