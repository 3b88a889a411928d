package io.sharegpu.extender;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.core.ledger.GpuUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Test objects: GPU nodes, pods, and the over-commit invariant. */
public final class Fixtures {

  private Fixtures() {}

  /** A Node with sharegpu capacity and a Ready condition. */
  public static Node node(String name, int gpus, long memoryMibEach) {
    Map<String, Quantity> cap = new HashMap<>();
    cap.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(gpus * 1000)));
    cap.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(gpus * memoryMibEach)));
    cap.put("cpu", new Quantity("64"));
    cap.put("memory", new Quantity("512Gi"));
    cap.put("pods", new Quantity("110"));
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("kubernetes.io/hostname", name)
        .endMetadata()
        .withNewStatus()
        .withCapacity(cap)
        .withAllocatable(cap)
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withReason("KubeletReady")
        .withMessage("simulated")
        .endCondition()
        .endStatus()
        .build();
  }

  /** UUID of GPU {@code index} of {@code node}. */
  public static String uuid(String node, int index) {
    return "GPU-" + node + "-" + index;
  }

  /** A GPUNode with {@code count} whole GPUs of one model. */
  public static GPUNode gpuNode(String name, String model, int count, long memoryMib) {
    List<GpuStatus> gpus = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      GpuStatus s = new GpuStatus(uuid(name, i), i, model, memoryMib);
      s.setComputeMilli(1000);
      s.setHealthy(true);
      gpus.add(s);
    }
    return gpuNode(name, gpus);
  }

  /** A GPUNode with the given GPUs. */
  public static GPUNode gpuNode(String name, List<GpuStatus> gpus) {
    GPUNode g = new GPUNode();
    g.setMetadata(new ObjectMetaBuilder().withName(name).build());
    GPUNodeStatus status = new GPUNodeStatus();
    status.setGpus(gpus);
    status.setEnforcement(GPUNodeStatus.ENFORCEMENT_MPS);
    g.setStatus(status);
    return g;
  }

  /** A pending pod with one container asking for {@code milli} and {@code memoryMib}. */
  public static Pod pod(String ns, String name, String uid, int milli, long memoryMib) {
    Map<String, Quantity> limits = new HashMap<>();
    limits.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(milli)));
    if (memoryMib > 0) {
      limits.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(memoryMib)));
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(ShareGpuAnnotations.SCHEDULER_NAME)
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .withLimits(limits)
        .withRequests(limits)
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** A scheduling state and its feed with no client, fed by hand, ready. */
  public static ClusterFixture view(String policy) {
    return ClusterFixture.ready(policy);
  }

  /** Adds a GPU node (Node + GPUNode) to a view. */
  public static void addNode(ClusterFixture v, String name, String model, int gpus, long mem) {
    v.onNode(node(name, gpus, mem));
    v.onGpuNode(gpuNode(name, model, gpus, mem));
  }

  /** Asserts no GPU of the view is over-committed; returns the total allocated compute. */
  public static long assertInvariant(ClusterFixture v) {
    return v.withLedger(
        l -> {
          long total = 0;
          for (var n : l.nodes()) {
            for (GpuUsage u : l.usage(n.name())) {
              if (u.usedMilli() > u.gpu().computeMilli()
                  || u.usedMemoryMib() > u.gpu().memoryMib()) {
                throw new AssertionError("GPU over-committed: " + u);
              }
              if (u.exclusive() && u.podKeys().size() > 1) {
                throw new AssertionError("exclusive GPU shared: " + u);
              }
              total += u.usedMilli();
            }
          }
          return total;
        });
  }
}
