package io.sharegpu.testcluster;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GPU nodes without machines behind them: a {@link TestCluster} has no kubelet, so a test writes
 * what a kubelet and ShareGPU's node agent would (a Ready Node with its capacity, and a GPUNode
 * with its GPUs). kube-scheduler schedules onto such nodes; no container ever runs.
 */
public final class SimulatedNodes {

  private SimulatedNodes() {}

  /**
   * Host capacity plus ShareGPU's extended resources, as a device plugin advertises them: {@code
   * gpuCount × 1000} compute milli and {@code gpuCount × memoryMibEach} MiB.
   */
  public static Map<String, Quantity> capacity(
      String cpu, String memory, long gpuMilli, long gpuMemoryMib) {
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity(cpu));
    capacity.put("memory", new Quantity(memory));
    capacity.put("pods", new Quantity("110"));
    capacity.put(ShareGpuResources.GPU_MILLI, new Quantity(Long.toString(gpuMilli)));
    capacity.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(gpuMemoryMib)));
    return capacity;
  }

  /** {@link #capacity} of a 64-core, 512 GiB host with {@code count} GPUs of {@code mib} each. */
  public static Map<String, Quantity> gpuHost(int count, long mib) {
    return capacity("64", "512Gi", count * 1000L, count * mib);
  }

  /**
   * Creates a Node labelled {@code kubernetes.io/hostname} (plus {@code labels}), sets its status
   * (capacity = allocatable, a Ready condition, {@code images}) and removes the {@code
   * node.kubernetes.io/} taints the node lifecycle controller may have put on it meanwhile.
   */
  public static Node createReadyNode(
      KubernetesClient client,
      String name,
      Map<String, String> labels,
      Map<String, Quantity> capacity,
      List<ContainerImage> images) {
    Map<String, String> allLabels = new LinkedHashMap<>(labels);
    allLabels.put("kubernetes.io/hostname", name);
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(allLabels)
                .endMetadata()
                .build())
        .create();
    String now = Instant.now().toString();
    client
        .nodes()
        .withName(name)
        .editStatus(
            n ->
                new NodeBuilder(n)
                    .editOrNewStatus()
                    .withCapacity(capacity)
                    .withAllocatable(capacity)
                    .withImages(images)
                    .withConditions(
                        new NodeConditionBuilder()
                            .withType("Ready")
                            .withStatus("True")
                            .withReason("KubeletReady")
                            .withMessage("simulated")
                            .withLastHeartbeatTime(now)
                            .withLastTransitionTime(now)
                            .build())
                    .endStatus()
                    .build());
    Node node = client.nodes().withName(name).get();
    if (node.getSpec().getTaints() != null && !node.getSpec().getTaints().isEmpty()) {
      node =
          client
              .nodes()
              .withName(name)
              .edit(
                  n -> {
                    n.getSpec()
                        .getTaints()
                        .removeIf(t -> t.getKey().startsWith("node.kubernetes.io/"));
                    return n;
                  });
    }
    return node;
  }

  /** {@link #createReadyNode} with no extra labels and no images. */
  public static Node createReadyNode(
      KubernetesClient client, String name, Map<String, Quantity> capacity) {
    return createReadyNode(client, name, Map.of(), capacity, List.of());
  }

  /**
   * Deletes a simulated Node and its GPUNode, so that later tests on the same control plane do not
   * place their pods there.
   */
  public static void deleteNode(KubernetesClient client, String node) {
    client.resources(GPUNode.class).withName(node).delete();
    client.nodes().withName(node).delete();
  }

  /**
   * Creates the node's GPUNode and writes its status through the status subresource, as the node
   * agent does: the GPUs, MPS enforcement and a heartbeat of now.
   */
  public static GPUNode createGpuNode(KubernetesClient client, String node, List<GpuStatus> gpus) {
    GPUNode g = new GPUNode();
    g.setMetadata(new ObjectMetaBuilder().withName(node).build());
    g.setSpec(new GPUNodeSpec(node));
    GPUNode created = client.resources(GPUNode.class).resource(g).create();
    GPUNodeStatus status = new GPUNodeStatus();
    status.setGpus(gpus);
    status.setEnforcement(GPUNodeStatus.ENFORCEMENT_MPS);
    status.setDriverVersion("550.54.15");
    status.setHeartbeatTime(Instant.now().toString());
    created.setStatus(status);
    return client.resources(GPUNode.class).resource(created).updateStatus();
  }
}
