package io.sharegpu.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.sharegpu.agent.gpu.GpuDevice;
import io.sharegpu.agent.gpu.GpuSnapshot;
import io.sharegpu.agent.gpu.InventoryFile;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.SimulatedNodes;
import io.sharegpu.testcluster.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent jar, fed the inventory recorded on an H200, against a real kube-apiserver: it creates
 * the GPUNode and the Node's capacity the extender relies on, re-asserts the capacity when it is
 * removed, and follows GPUs appearing and MPS starting.
 */
class NodeAgentE2E {

  private static final String H200 = "GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7";
  private static KubernetesClient client;

  private JavaApp agent;

  @BeforeAll
  static void cluster() {
    TestCluster cluster = TestCluster.shared();
    cluster.applyShareGpuCrds();
    client = cluster.client();
  }

  @AfterEach
  void stopAgent() {
    if (agent != null) {
      agent.stop();
    }
  }

  @Test
  void publishesTheRecordedH200AndFollowsChanges(@TempDir Path dir) throws Exception {
    String node = "agent-e2e-" + UUID.randomUUID().toString().substring(0, 8);
    createReadyNode(node);
    Path inventory = dir.resolve("inventory.json");
    Files.copy(Recorded.path("h200-inventory.json"), inventory);
    Path mps = Files.createDirectories(dir.resolve("mps"));
    int port = Ports.free();

    agent =
        JavaApp.jar(TestCluster.repoRoot().resolve("node-agent/target/sharegpu-node-agent.jar"))
            .name("node-agent")
            .env("KUBECONFIG", TestCluster.shared().kubeconfig().toString())
            .env("NODE_NAME", node)
            .env("SHAREGPU_AGENT_INVENTORY_FILE", inventory.toString())
            .env("SHAREGPU_AGENT_HEARTBEAT", "1s")
            .env("SHAREGPU_AGENT_MPS_PIPE_DIRECTORY", mps.toString())
            .env("SHAREGPU_AGENT_METRICS_PORT", Integer.toString(port))
            .start()
            .waitForHttp("http://127.0.0.1:" + port + "/readyz", Duration.ofSeconds(90));

    GPUNode gpuNode = client.resources(GPUNode.class).withName(node).get();
    assertThat(gpuNode.getSpec().getNodeName()).isEqualTo(node);
    assertThat(gpuNode.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo(node));
    GPUNodeStatus status = gpuNode.getStatus();
    assertThat(status.getDriverVersion()).isEqualTo("580.159.04");
    assertThat(status.getEnforcement()).isEqualTo("none");
    assertThat(status.getGpus())
        .extracting(
            GpuStatus::getUuid,
            GpuStatus::getModel,
            GpuStatus::getMemoryMiB,
            GpuStatus::getComputeMilli,
            GpuStatus::isHealthy)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(H200, "NVIDIA H200", 143771L, 1000, true));
    assertThat(capacity(node))
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("1000"))
        .containsEntry("sharegpu.io/gpu-memory", new Quantity("143771"))
        .containsEntry("cpu", new Quantity("8"));

    // An operator cordons the GPU (spec) and the extender writes its summary (status.allocation):
    // the agent's heartbeats leave both alone.
    client
        .resources(GPUNode.class)
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"cordonedGpus\":[{\"uuid\":\"" + H200 + "\",\"reason\":\"Xid 79\"}]}}");
    client
        .resources(GPUNode.class)
        .withName(node)
        .status()
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"allocation\":{\"freeGpus\":1,\"cordonedGpus\":1}}}");
    // Heartbeat: the status keeps being written.
    String firstBeat = status.getHeartbeatTime();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .resources(GPUNode.class)
                            .withName(node)
                            .get()
                            .getStatus()
                            .getHeartbeatTime())
                    .isNotEqualTo(firstBeat));
    GPUNode afterBeat = client.resources(GPUNode.class).withName(node).get();
    assertThat(afterBeat.getSpec().getCordonedGpus())
        .extracting(GpuCordon::getUuid, GpuCordon::getReason)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(H200, "Xid 79"));
    assertThat(afterBeat.getStatus().getAllocation()).isNotNull();
    assertThat(afterBeat.getStatus().getAllocation().getCordonedGpus()).isEqualTo(1);
    assertThat(afterBeat.getStatus().getGpuCount()).isEqualTo(1);

    // Someone (a kubelet restart) drops the extended resources: the agent puts them back.
    client
        .nodes()
        .withName(node)
        .editStatus(
            n ->
                new NodeBuilder(n)
                    .editStatus()
                    .withCapacity(Map.of("cpu", new Quantity("8"), "pods", new Quantity("110")))
                    .withAllocatable(Map.of("cpu", new Quantity("8"), "pods", new Quantity("110")))
                    .endStatus()
                    .build());
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(capacity(node))
                    .containsEntry("sharegpu.io/gpu-milli", new Quantity("1000")));

    // An MPS control daemon starts (its control pipe appears) and a second GPU shows up, unhealthy.
    Files.createFile(mps.resolve("control"));
    GpuSnapshot recorded = new InventoryFile(inventory).snapshot();
    GpuDevice second =
        GpuDevice.whole(
                "GPU-00000000-0000-0000-0000-000000000001", 1, "NVIDIA H200", 150754820096L, 0, 0)
            .unhealthy();
    Files.writeString(
        inventory,
        InventoryFile.toJson(
            "file",
            new GpuSnapshot(
                recorded.driverVersion(), List.of(recorded.devices().get(0), second), List.of())));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              GPUNodeStatus now = client.resources(GPUNode.class).withName(node).get().getStatus();
              assertThat(now.getEnforcement()).isEqualTo("mps");
              assertThat(now.getGpus())
                  .extracting(GpuStatus::isHealthy)
                  .containsExactly(true, false);
              assertThat(now.getAllocation()).isNotNull();
              Node n = client.nodes().withName(node).get();
              assertThat(n.getStatus().getCapacity())
                  .containsEntry("sharegpu.io/gpu-milli", new Quantity("2000"))
                  .containsEntry("sharegpu.io/gpu-memory", new Quantity("287542"));
              assertThat(n.getStatus().getAllocatable())
                  .containsEntry("sharegpu.io/gpu-milli", new Quantity("1000"))
                  .containsEntry("sharegpu.io/gpu-memory", new Quantity("143771"));
            });

    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.body())
        .contains(
            "sharegpu_gpu_memory_total_bytes{device_uuid=\""
                + H200
                + "\",model=\"NVIDIA H200\",node=\""
                + node
                + "\"} 1.50754820096E11");
  }

  private static Map<String, Quantity> capacity(String node) {
    return client.nodes().withName(node).get().getStatus().getCapacity();
  }

  /** Plays the kubelet: registers the Node and reports it Ready with CPU and memory. */
  private static void createReadyNode(String name) {
    SimulatedNodes.createReadyNode(
        client,
        name,
        Map.of(
            "cpu", new Quantity("8"), "memory", new Quantity("32Gi"), "pods", new Quantity("110")));
  }
}
