package io.sharegpu.agent.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what the agent found to the API server: creates the node's GPUNode when missing (owned by
 * the Node, so it goes with it), patches its status subresource (the heartbeat), and patches the
 * Node's {@code status.capacity}/{@code allocatable} with the ShareGPU extended resources whenever
 * they differ from what is there, including after someone (a kubelet restart) removed them.
 */
public final class GpuNodePublisher {

  private static final Logger log = LoggerFactory.getLogger(GpuNodePublisher.class);
  private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);
  private static final PatchContext JSON_PATCH = PatchContext.of(PatchType.JSON);

  private final KubernetesClient client;
  private final String nodeName;

  public GpuNodePublisher(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
  }

  /**
   * Creates the GPUNode if needed and writes its status.
   *
   * @throws KubernetesClientException when the API server refuses
   */
  public void publishStatus(GPUNodeStatus status) {
    var resource = client.resources(GPUNode.class).withName(nodeName);
    if (resource.get() == null) {
      create();
    }
    // JSON patch "add /status" replaces the whole status (a merge patch would merge lists in some
    // servers and keep fields that are gone): GPUs that vanished disappear from the list.
    String patch =
        client
            .getKubernetesSerialization()
            .asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
    resource.status().patch(JSON_PATCH, patch);
  }

  private void create() {
    GPUNode gpuNode = new GPUNode();
    ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(nodeName);
    @Nullable Node node = client.nodes().withName(nodeName).get();
    if (node != null) {
      meta.withOwnerReferences(
          new OwnerReferenceBuilder()
              .withApiVersion("v1")
              .withKind("Node")
              .withName(nodeName)
              .withUid(node.getMetadata().getUid())
              .build());
    }
    gpuNode.setMetadata(meta.build());
    gpuNode.setSpec(new GPUNodeSpec(nodeName));
    try {
      client.resources(GPUNode.class).resource(gpuNode).create();
      log.info("created GPUNode {}", nodeName);
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
    }
  }

  /**
   * Patches the Node's capacity and allocatable when they differ from the wanted values.
   *
   * @return true when a patch was sent
   * @throws IllegalStateException when the Node does not exist (the kubelet registers it)
   */
  public boolean publishCapacity(Map<String, String> capacity, Map<String, String> allocatable) {
    @Nullable Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new IllegalStateException("Node " + nodeName + " does not exist");
    }
    if (matches(node, capacity, allocatable)) {
      return false;
    }
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("capacity", capacity);
    status.put("allocatable", allocatable);
    client
        .nodes()
        .withName(nodeName)
        .status()
        .patch(MERGE, client.getKubernetesSerialization().asJson(Map.of("status", status)));
    log.info("node {}: capacity {} allocatable {}", nodeName, capacity, allocatable);
    return true;
  }

  /** Returns true when the Node already advertises exactly these values. */
  public static boolean matches(
      Node node, Map<String, String> capacity, Map<String, String> allocatable) {
    if (node.getStatus() == null) {
      return false;
    }
    return contains(node.getStatus().getCapacity(), capacity)
        && contains(node.getStatus().getAllocatable(), allocatable);
  }

  private static boolean contains(
      @Nullable Map<String, Quantity> actual, Map<String, String> want) {
    if (actual == null) {
      return false;
    }
    for (Map.Entry<String, String> e : want.entrySet()) {
      Quantity q = actual.get(e.getKey());
      if (q == null
          || q.getNumericalAmount().compareTo(new Quantity(e.getValue()).getNumericalAmount())
              != 0) {
        return false;
      }
    }
    return true;
  }
}
