package io.sharegpu.testcluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * GPU nodes for tests: the Node a kubelet with ShareGPU's device plugin would register and the
 * GPUNode its node agent would publish, as objects for unit tests or created in a {@link
 * TestCluster} through {@link SimulatedNodes}.
 *
 * <pre>{@code
 * TestNodes.gpuNode("n1").gpus(8, "NVIDIA H100 80GB HBM3", 81559).create(client);
 * Node node = TestNodes.gpuNode("t4").gpus(1, "Tesla T4", 15360).node();
 * }</pre>
 */
public final class TestNodes {

  private TestNodes() {}

  /** Starts GPU node {@code name} on a 64-core, 512 GiB host, with no GPU yet. */
  public static Builder gpuNode(String name) {
    return new Builder(name);
  }

  /**
   * The UUID {@link Builder#gpus} gives GPU {@code index} of {@code node}: {@code GPU-node-index}.
   */
  public static String uuid(String node, int index) {
    return "GPU-" + node + "-" + index;
  }

  /**
   * A UUID shaped like NVIDIA's for GPU {@code index} of {@code node}, for {@link Builder#uuids}:
   * {@code GPU-<node's hash code, 8 hex digits>-0000-0000-0000-<index, 12 digits>}.
   */
  public static String nvidiaUuid(String node, int index) {
    return String.format("GPU-%08x-0000-0000-0000-%012d", node.hashCode(), index);
  }

  /** A GPU node under construction. */
  public static final class Builder {

    private final String name;
    private String cpu = "64";
    private String memory = "512Gi";
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final List<GpuStatus> gpus = new ArrayList<>();
    private IntFunction<String> uuids;

    private Builder(String name) {
      this.name = name;
      this.uuids = i -> uuid(name, i);
    }

    /** The host's CPU and memory capacity, e.g. {@code "32", "256Gi"}. */
    public Builder host(String cpu, String memory) {
      this.cpu = cpu;
      this.memory = memory;
      return this;
    }

    public Builder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    /**
     * How the GPUs added after this call are named from their index; {@link TestNodes#uuid} unless
     * set.
     */
    public Builder uuids(IntFunction<String> uuidOfIndex) {
      this.uuids = uuidOfIndex;
      return this;
    }

    /**
     * Adds {@code count} whole, healthy GPUs of {@code model} with {@code memoryMib} MiB each,
     * indexed after the GPUs already added.
     */
    public Builder gpus(int count, String model, long memoryMib) {
      for (int i = 0; i < count; i++) {
        int index = gpus.size();
        GpuStatus s = new GpuStatus(uuids.apply(index), index, model, memoryMib);
        s.setComputeMilli(1000);
        s.setHealthy(true);
        gpus.add(s);
      }
      return this;
    }

    /**
     * Adds {@code count} healthy MIG instances of profile {@code profile} of one GPU (parent {@code
     * GPU-name-parent}), each with {@code computeMilli} of compute and {@code memoryMib} MiB.
     */
    public Builder migInstances(
        int count, String model, String profile, int computeMilli, long memoryMib) {
      for (int i = 0; i < count; i++) {
        int index = gpus.size();
        GpuStatus s = new GpuStatus(uuids.apply(index), index, model, memoryMib);
        s.setComputeMilli(computeMilli);
        s.setHealthy(true);
        s.setParentUuid("GPU-" + name + "-parent");
        s.setMigProfile(profile);
        gpus.add(s);
      }
      return this;
    }

    /** Adds a GPU as it is. */
    public Builder gpu(GpuStatus gpu) {
      gpus.add(gpu);
      return this;
    }

    public String name() {
      return name;
    }

    /** The GPUs added so far (the same objects). */
    public List<GpuStatus> gpuStatuses() {
      return List.copyOf(gpus);
    }

    /**
     * Host capacity plus the extended resources a device plugin advertises: 1000 compute milli per
     * physical GPU (MIG instances of one parent count once) and the sum of the GPUs' memory in MiB.
     * Example: 8 H100s of 81,559 MiB give {@code gpu-milli 8000, gpu-memory 652472}.
     */
    public Map<String, Quantity> capacity() {
      Set<String> physical = new HashSet<>();
      long memoryMib = 0;
      for (GpuStatus g : gpus) {
        @Nullable String parent = g.getParentUuid();
        physical.add(parent != null ? parent : String.valueOf(g.getUuid()));
        memoryMib += g.getMemoryMiB();
      }
      return SimulatedNodes.capacity(cpu, memory, physical.size() * 1000L, memoryMib);
    }

    /**
     * The Node object: labelled {@code kubernetes.io/hostname}, {@link #capacity} as capacity and
     * allocatable, and a Ready condition.
     */
    public Node node() {
      Map<String, String> allLabels = new LinkedHashMap<>(labels);
      allLabels.put("kubernetes.io/hostname", name);
      Map<String, Quantity> capacity = capacity();
      return new NodeBuilder()
          .withNewMetadata()
          .withName(name)
          .withLabels(allLabels)
          .endMetadata()
          .withNewStatus()
          .withCapacity(capacity)
          .withAllocatable(capacity)
          .addNewCondition()
          .withType("Ready")
          .withStatus("True")
          .withReason("KubeletReady")
          .withMessage("simulated")
          .endCondition()
          .endStatus()
          .build();
    }

    /** The GPUNode object: its status holds the GPUs and MPS enforcement; no spec. */
    public GPUNode gpuNodeResource() {
      GPUNode g = new GPUNode();
      g.setMetadata(new ObjectMetaBuilder().withName(name).build());
      GPUNodeStatus status = new GPUNodeStatus();
      status.setGpus(new ArrayList<>(gpus));
      status.setEnforcement(GPUNodeStatus.ENFORCEMENT_MPS);
      g.setStatus(status);
      return g;
    }

    /**
     * Creates the Ready Node ({@link SimulatedNodes#createReadyNode}, no images) and its GPUNode
     * ({@link SimulatedNodes#createGpuNode}) in the cluster; returns the GPUs.
     */
    public List<GpuStatus> create(KubernetesClient client) {
      SimulatedNodes.createReadyNode(client, name, labels, capacity(), List.of());
      SimulatedNodes.createGpuNode(client, name, new ArrayList<>(gpus));
      return gpuStatuses();
    }
  }
}
