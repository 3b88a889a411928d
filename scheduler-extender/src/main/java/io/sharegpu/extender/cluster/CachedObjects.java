package io.sharegpu.extender.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The reduced copies of Pods, Nodes and GPUNodes that the extender's informers keep. A cluster of
 * 5,000 nodes and 50,000 pods held as full objects takes gigabytes (managed fields, env, volumes,
 * statuses, node images); the extender reads a handful of fields.
 *
 * <p>What each copy keeps is everything the extender reads from a cached object (the informer event
 * handlers of {@link ClusterFeed}, its readiness replay, {@code PodBinder}'s read of the pod to
 * bind, the bind leader's catch-up check) and nothing else:
 *
 * <ul>
 *   <li><b>Pod</b>: {@code metadata.name, namespace, uid, resourceVersion, deletionTimestamp}, the
 *       {@code sharegpu.io/} annotations (GPU request options and assignment), the labels (which
 *       PodDisruptionBudgets cover a preemption victim); {@code spec.nodeName, spec.priority}; the
 *       containers and init containers that ask for a {@code sharegpu.io/} resource, with their
 *       name and only those resources in {@code limits} and {@code requests} ({@code
 *       PodGpuRequestParser} reads nothing else); {@code status.phase, status.startTime,
 *       status.nominatedNodeName} (a preemptor waiting for its victims to go).
 *   <li><b>Node</b>: {@code metadata.name, uid, resourceVersion} (the ledger needs to know the node
 *       exists).
 *   <li><b>GPUNode</b>: {@code metadata.name, uid, resourceVersion}, each GPU of {@code
 *       status.gpus} and of {@code spec.cordonedGpus} ({@link
 *       io.sharegpu.extender.mapping.GpuNodeMapper#toGpuNode} reads nothing else), and {@code
 *       status.allocation} (the allocation summary, written only when it changed).
 * </ul>
 *
 * Empty collections are shared immutable ones, and the copies share the original's strings and
 * quantities. The copies are read only: they are shared with the informers' stores.
 */
public final class CachedObjects {

  private CachedObjects() {}

  /** The pod as the pod informer keeps it. */
  public static Pod pod(Pod pod) {
    Pod p = new Pod();
    p.setAdditionalProperties(Map.of());
    p.setMetadata(meta(pod.getMetadata(), true));
    if (pod.getMetadata() != null && pod.getMetadata().getLabels() != null) {
      p.getMetadata().setLabels(Map.copyOf(withoutNulls(pod.getMetadata().getLabels())));
    }
    PodSpec source = pod.getSpec();
    PodSpec spec = emptySpec();
    if (source != null) {
      spec.setNodeName(shared(source.getNodeName()));
      spec.setPriority(source.getPriority());
      spec.setContainers(gpuContainers(source.getContainers()));
      spec.setInitContainers(gpuContainers(source.getInitContainers()));
    }
    p.setSpec(spec);
    PodStatus status = emptyStatus();
    if (pod.getStatus() != null) {
      status.setPhase(shared(pod.getStatus().getPhase()));
      status.setStartTime(pod.getStatus().getStartTime());
      status.setNominatedNodeName(shared(pod.getStatus().getNominatedNodeName()));
    }
    p.setStatus(status);
    return p;
  }

  /** The node as the node informer keeps it. */
  public static Node node(Node node) {
    Node n = new Node();
    n.setAdditionalProperties(Map.of());
    n.setMetadata(meta(node.getMetadata(), false));
    return n;
  }

  /** The GPUNode as the GPUNode informer keeps it. */
  public static GPUNode gpuNode(GPUNode gpuNode) {
    GPUNode g = new GPUNode();
    g.setMetadata(meta(gpuNode.getMetadata(), false));
    g.setSpec(null);
    GPUNodeSpec sourceSpec = gpuNode.getSpec();
    if (sourceSpec != null
        && sourceSpec.getCordonedGpus() != null
        && !sourceSpec.getCordonedGpus().isEmpty()) {
      GPUNodeSpec spec = new GPUNodeSpec();
      List<GpuCordon> cordons = new ArrayList<>();
      for (GpuCordon c : sourceSpec.getCordonedGpus()) {
        if (c != null && c.getUuid() != null) {
          cordons.add(new GpuCordon(c.getUuid(), c.getReason(), c.getTime()));
        }
      }
      spec.setCordonedGpus(List.copyOf(cordons));
      g.setSpec(spec);
    }
    GPUNodeStatus status = new GPUNodeStatus();
    List<GpuStatus> gpus = new ArrayList<>();
    if (gpuNode.getStatus() != null && gpuNode.getStatus().getGpus() != null) {
      for (GpuStatus s : gpuNode.getStatus().getGpus()) {
        GpuStatus c = new GpuStatus();
        c.setUuid(s.getUuid());
        c.setIndex(s.getIndex());
        c.setModel(s.getModel());
        c.setMemoryMiB(s.getMemoryMiB());
        c.setComputeMilli(s.getComputeMilli());
        c.setHealthy(s.isHealthy());
        c.setParentUuid(s.getParentUuid());
        c.setMigProfile(s.getMigProfile());
        gpus.add(c);
      }
    }
    status.setGpus(List.copyOf(gpus));
    status.setConditions(List.of());
    if (gpuNode.getStatus() != null) {
      status.setAllocation(gpuNode.getStatus().getAllocation());
    }
    g.setStatus(status);
    return g;
  }

  private static Map<String, String> withoutNulls(Map<String, String> labels) {
    boolean clean = true;
    for (Map.Entry<String, String> e : labels.entrySet()) {
      clean &= e.getKey() != null && e.getValue() != null;
    }
    if (clean) {
      return labels;
    }
    Map<String, String> kept = new HashMap<>();
    labels.forEach(
        (k, v) -> {
          if (k != null && v != null) {
            kept.put(k, v);
          }
        });
    return kept;
  }

  private static ObjectMeta meta(@Nullable ObjectMeta source, boolean shareGpuAnnotations) {
    ObjectMeta m = new ObjectMeta();
    m.setAnnotations(Map.of());
    m.setLabels(Map.of());
    m.setFinalizers(List.of());
    m.setManagedFields(List.of());
    m.setOwnerReferences(List.of());
    m.setAdditionalProperties(Map.of());
    if (source == null) {
      return m;
    }
    m.setName(source.getName());
    m.setNamespace(shared(source.getNamespace()));
    m.setUid(source.getUid());
    m.setResourceVersion(source.getResourceVersion());
    m.setDeletionTimestamp(source.getDeletionTimestamp());
    if (shareGpuAnnotations && source.getAnnotations() != null) {
      Map<String, String> kept = new HashMap<>();
      source
          .getAnnotations()
          .forEach(
              (k, v) -> {
                if (k != null
                    && v != null
                    && k.startsWith(ShareGpuResources.PREFIX)
                    && !k.equals(ShareGpuAnnotations.ASSIGNED_AT)) {
                  kept.put(
                      shared(k), k.startsWith(ShareGpuAnnotations.ASSIGNED_GPUS) ? v : shared(v));
                }
              });
      m.setAnnotations(Map.copyOf(kept));
    }
    return m;
  }

  private static List<Container> gpuContainers(@Nullable List<Container> containers) {
    if (containers == null || containers.isEmpty()) {
      return List.of();
    }
    List<Container> kept = new ArrayList<>(1);
    for (Container c : containers) {
      if (c.getResources() == null) {
        continue;
      }
      Map<String, Quantity> limits = shareGpu(c.getResources().getLimits());
      Map<String, Quantity> requests = shareGpu(c.getResources().getRequests());
      if (limits.isEmpty() && requests.isEmpty()) {
        continue;
      }
      ResourceRequirements r = new ResourceRequirements();
      r.setClaims(List.of());
      r.setLimits(limits);
      r.setRequests(requests);
      r.setAdditionalProperties(Map.of());
      Container k = emptyContainer();
      k.setName(c.getName());
      k.setResources(r);
      kept.add(k);
    }
    return kept.isEmpty() ? List.of() : List.copyOf(kept);
  }

  private static Map<String, Quantity> shareGpu(@Nullable Map<String, Quantity> resources) {
    if (resources == null || resources.isEmpty()) {
      return Map.of();
    }
    Map<String, Quantity> kept = new HashMap<>();
    resources.forEach(
        (k, v) -> {
          if (k != null && v != null && k.startsWith(ShareGpuResources.PREFIX)) {
            kept.put(shared(k), shared(v));
          }
        });
    return Map.copyOf(kept);
  }

  /**
   * The canonical instance of a string that many cached objects repeat (namespaces, node names,
   * phases, resource names and amounts, assignment values other than GPU UUIDs). Interned strings
   * are collected once nothing refers to them.
   */
  private static @Nullable String shared(@Nullable String s) {
    return s == null ? null : s.intern();
  }

  private static Quantity shared(Quantity q) {
    return new Quantity(shared(q.getAmount()), shared(q.getFormat()));
  }

  private static Container emptyContainer() {
    Container c = new Container();
    c.setArgs(List.of());
    c.setCommand(List.of());
    c.setEnv(List.of());
    c.setEnvFrom(List.of());
    c.setPorts(List.of());
    c.setResizePolicy(List.of());
    c.setRestartPolicyRules(List.of());
    c.setVolumeDevices(List.of());
    c.setVolumeMounts(List.of());
    c.setAdditionalProperties(Map.of());
    return c;
  }

  private static PodSpec emptySpec() {
    PodSpec s = new PodSpec();
    s.setContainers(List.of());
    s.setEphemeralContainers(List.of());
    s.setEvictionResponders(List.of());
    s.setHostAliases(List.of());
    s.setImagePullSecrets(List.of());
    s.setInitContainers(List.of());
    s.setNodeSelector(Map.of());
    s.setOverhead(Map.of());
    s.setReadinessGates(List.of());
    s.setResourceClaims(List.of());
    s.setSchedulingGates(List.of());
    s.setTolerations(List.of());
    s.setTopologySpreadConstraints(List.of());
    s.setVolumes(List.of());
    s.setAdditionalProperties(Map.of());
    return s;
  }

  private static PodStatus emptyStatus() {
    PodStatus s = new PodStatus();
    s.setAllocatedResources(Map.of());
    s.setConditions(List.of());
    s.setContainerStatuses(List.of());
    s.setEphemeralContainerStatuses(List.of());
    s.setHostIPs(List.of());
    s.setInitContainerStatuses(List.of());
    s.setNodeAllocatableResourceClaimStatuses(List.of());
    s.setPodIPs(List.of());
    s.setResourceClaimStatuses(List.of());
    s.setVolumeHealth(List.of());
    s.setAdditionalProperties(Map.of());
    return s;
  }
}
