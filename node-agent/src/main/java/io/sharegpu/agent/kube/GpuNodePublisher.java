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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what the agent found to the API server: creates the node's GPUNode when missing (owned by
 * the Node, so it goes with it), patches its own fields of the status subresource (the heartbeat:
 * the spec, such as an operator's cordoned GPUs, and the extender's {@code status.allocation} are
 * never written), and patches the Node's {@code status.capacity}/{@code allocatable} with the
 * ShareGPU extended resources whenever they differ from what is there, including after someone (a
 * kubelet restart) removed them.
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
    GPUNode current = resource.get();
    if (current == null) {
      create();
    }
    resource.status().patch(JSON_PATCH, statusPatch(current, status));
  }

  /**
   * The JSON patch that writes the agent's own status fields and nothing else. Each field is
   * replaced whole ("add" on a member replaces it: GPUs that vanished disappear from the list), a
   * field the agent no longer has is removed, and {@code status.allocation}, which the scheduler
   * extender owns, is left alone. Without a status yet: one "add /status" of the agent's fields.
   */
  String statusPatch(@Nullable GPUNode current, GPUNodeStatus status) {
    var serialization = client.getKubernetesSerialization();
    Map<String, Object> own = new LinkedHashMap<>();
    @SuppressWarnings("unchecked")
    Map<String, Object> all = serialization.convertValue(status, Map.class);
    all.forEach(
        (k, v) -> {
          if (OWN_FIELDS.contains(k) && v != null) {
            own.put(k, v);
          }
        });
    if (current == null || current.getStatus() == null) {
      return serialization.asJson(List.of(Map.of("op", "add", "path", "/status", "value", own)));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> before = serialization.convertValue(current.getStatus(), Map.class);
    List<Map<String, Object>> ops = new ArrayList<>();
    own.forEach((k, v) -> ops.add(Map.of("op", "add", "path", "/status/" + k, "value", v)));
    for (String k : OWN_FIELDS) {
      if (!own.containsKey(k) && before.get(k) != null) {
        ops.add(Map.of("op", "remove", "path", "/status/" + k));
      }
    }
    return serialization.asJson(ops);
  }

  /** The status fields the agent writes; the others (allocation) belong to someone else. */
  static final Set<String> OWN_FIELDS =
      Set.of(
          "gpus",
          "gpuCount",
          "healthyGpus",
          "driverVersion",
          "enforcement",
          "heartbeatTime",
          "conditions");

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
