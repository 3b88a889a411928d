package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Small clusters for the policy tests: GPUs of 1000 MiB so memory follows compute. */
final class PolicyTestSupport {
  private final Ledger ledger = new Ledger();
  private int uid;

  PolicyTestSupport node(String name, int gpus, long cpuMilli) {
    return node(name, gpus, cpuMilli, "T4");
  }

  PolicyTestSupport node(String name, int gpus, long cpuMilli, String model) {
    List<Gpu> list = new ArrayList<>();
    for (int i = 0; i < gpus; i++) {
      list.add(Gpu.whole(name + "-g" + i, i, model, 1000));
    }
    ledger.putNode(new GpuNode(name, list, cpuMilli, 1_000_000));
    return this;
  }

  /** Holds {@code milli} of GPU {@code gpu} of {@code node} by a pod of that share. */
  PolicyTestSupport used(String node, int gpu, int milli) {
    String id = "pre-" + uid++;
    ledger.commit(
        new Allocation(
            "ns/" + id,
            id,
            node,
            List.of(
                new ContainerGrant(
                    "main", List.of(new GpuGrant(node + "-g" + gpu, milli, milli)), milli)),
            AllocationState.BOUND),
        0,
        0);
    return this;
  }

  Ledger ledger() {
    return ledger;
  }

  static PodDemand share(String name, int milli, long cpu) {
    return new PodDemand(
        "ns/" + name,
        name,
        List.of(GpuDemand.share("main", milli, 0)),
        Set.of(),
        Set.of(),
        Set.of(),
        cpu,
        0);
  }

  static PodDemand whole(String name, int count, long cpu) {
    return new PodDemand(
        "ns/" + name,
        name,
        List.of(GpuDemand.whole("main", count, 0)),
        Set.of(),
        Set.of(),
        Set.of(),
        cpu,
        0);
  }

  /** Where the policy puts the pod: "node/gpuIndex" of the first GPU. */
  String place(PlacementPolicy policy, PodDemand pod) {
    policy.observe(pod);
    return placeUnobserved(policy, pod);
  }

  /** As {@link #place} without telling the policy about the pod first. */
  String placeUnobserved(PlacementPolicy policy, PodDemand pod) {
    Allocation a = new Placement(ledger, policy).place(pod).orElseThrow();
    String uuid = a.containers().get(0).gpus().get(0).uuid();
    return a.node() + "/" + uuid.substring(uuid.lastIndexOf("-g") + 2);
  }
}
