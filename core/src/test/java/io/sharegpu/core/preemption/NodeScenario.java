package io.sharegpu.core.preemption;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.BinPackPolicy;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;

/**
 * One node {@code n1} and the pods on it, each committed to the ledger and offered as a candidate:
 * {@code aNode().withGpus(2, H100).share("a", 0, 300, 1000, 5)}.
 */
final class NodeScenario {
  static final String NODE = "n1";
  static final String H100 = "NVIDIA H100 80GB HBM3";
  static final String A100 = "NVIDIA A100-SXM4-40GB";
  static final long H100_MIB = 81559;
  static final long A100_MIB = 40960;

  final Ledger ledger = new Ledger();
  final List<PreemptionCandidate> candidates = new ArrayList<>();
  private final List<Gpu> gpus = new ArrayList<>();
  private long hostCpuMilli;

  static NodeScenario aNode() {
    return new NodeScenario();
  }

  static String gpu(int index) {
    return "GPU-" + NODE + "-g" + index;
  }

  NodeScenario withGpus(int count, String model) {
    long mib = model.equals(A100) ? A100_MIB : H100_MIB;
    for (int i = 0; i < count; i++) {
      int index = gpus.size();
      gpus.add(Gpu.whole(gpu(index), index, model, mib));
    }
    ledger.putNode(new GpuNode(NODE, gpus, hostCpuMilli, 0));
    return this;
  }

  /** Cordons GPU {@code index} with {@code reason}. */
  NodeScenario withCordon(int index, String reason) {
    gpus.set(index, gpus.get(index).withCordon(reason));
    ledger.putNode(new GpuNode(NODE, gpus, hostCpuMilli, 0));
    return this;
  }

  NodeScenario withHostCpu(long milli) {
    hostCpuMilli = milli;
    ledger.putNode(new GpuNode(NODE, gpus, hostCpuMilli, 0));
    return this;
  }

  /** A pod holding a share of GPU {@code index}, at this priority, no budget, nothing lost. */
  NodeScenario share(String name, int index, int milli, long mib, int priority) {
    return pod(name, priority, false, 0, 0, new GpuGrant(gpu(index), milli, mib));
  }

  NodeScenario share(
      String name, int index, int milli, long mib, int priority, boolean budget, long lost) {
    return pod(name, priority, budget, lost, 0, new GpuGrant(gpu(index), milli, mib));
  }

  /** A pod holding these GPUs whole. */
  NodeScenario whole(String name, int priority, int... indexes) {
    GpuGrant[] grants = new GpuGrant[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      grants[i] = new GpuGrant(gpu(indexes[i]), 1000, gpus.get(indexes[i]).memoryMib());
    }
    return pod(name, priority, false, 0, 0, grants);
  }

  NodeScenario pod(
      String name, int priority, boolean budget, long lost, long cpuMilli, GpuGrant... grants) {
    Allocation a =
        new Allocation(
            "ns/" + name,
            name,
            NODE,
            List.of(new ContainerGrant("main", List.of(grants), grants[0].computeMilli())),
            AllocationState.BOUND);
    ledger.commit(a, cpuMilli, 0);
    candidates.add(new PreemptionCandidate(a, priority, budget, lost));
    return this;
  }

  PreemptionPlan select(PodDemand pod, int priority) {
    return selector().select(pod, priority, NODE, candidates);
  }

  VictimSelector selector() {
    return new VictimSelector(ledger, new Placement(ledger, new BinPackPolicy()));
  }

  ShortfallClassifier classifier() {
    return new ShortfallClassifier(ledger);
  }
}
