package io.sharegpu.extender;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.time.Instant;
import java.util.List;

/** Test objects: GPU nodes, pods, and the over-commit invariant. */
public final class Fixtures {

  private Fixtures() {}

  /**
   * A Node with sharegpu capacity ({@code gpus × 1000} milli, {@code gpus × memoryMibEach} MiB) and
   * a Ready condition.
   */
  public static Node node(String name, int gpus, long memoryMibEach) {
    // the model does not show on a Node
    return TestNodes.gpuNode(name).gpus(gpus, "any", memoryMibEach).node();
  }

  /** UUID of GPU {@code index} of {@code node}. */
  public static String uuid(String node, int index) {
    return TestNodes.uuid(node, index);
  }

  /** A GPUNode with {@code count} whole GPUs of one model. */
  public static GPUNode gpuNode(String name, String model, int count, long memoryMib) {
    return TestNodes.gpuNode(name).gpus(count, model, memoryMib).gpuNodeResource();
  }

  /** A GPUNode with the given GPUs. */
  public static GPUNode gpuNode(String name, List<GpuStatus> gpus) {
    TestNodes.Builder node = TestNodes.gpuNode(name);
    gpus.forEach(node::gpu);
    return node.gpuNodeResource();
  }

  /** A pending pod with one container asking for {@code milli} and {@code memoryMib}. */
  public static Pod pod(String ns, String name, String uid, int milli, long memoryMib) {
    return share(ns, name, uid, milli, memoryMib).build();
  }

  /**
   * {@link #pod} as a builder, to add what a test needs (an assignment, a priority, a phase): e.g.
   * {@code share("ns", "a", "uid-a", 500, 0).priority(10).build()}.
   */
  public static TestPods.Builder share(String ns, String name, String uid, int milli, long mib) {
    return TestPods.pod(name).namespace(ns).uid(uid).image("busybox").share(milli, mib);
  }

  /** When the fixtures' assignments were made (the {@code assigned-at} annotation). */
  public static final Instant ASSIGNED_AT = Instant.parse("2026-12-01T00:00:00Z");

  /**
   * The assignment of container {@code main} to GPU {@code gpu} of {@code node} (UUID {@link
   * #uuid}) with {@code memoryMib} MiB and a {@code milli} limit; for {@code
   * share(...).assigned(onGpu(...), ASSIGNED_AT)}.
   */
  public static PodAssignment onGpu(String node, int gpu, long memoryMib, int milli) {
    return new PodAssignment(
        node, List.of(new ContainerAssignment("main", List.of(uuid(node, gpu)), memoryMib, milli)));
  }

  /** A scheduling state and its feed with no client, fed by hand, ready. */
  public static ClusterFixture view(String policy) {
    return ClusterFixture.ready(policy);
  }

  /** Adds a GPU node (Node + GPUNode) to a view. */
  public static void addNode(ClusterFixture v, String name, String model, int gpus, long mem) {
    TestNodes.Builder node = TestNodes.gpuNode(name).gpus(gpus, model, mem);
    v.onNode(node.node());
    v.onGpuNode(node.gpuNodeResource());
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
