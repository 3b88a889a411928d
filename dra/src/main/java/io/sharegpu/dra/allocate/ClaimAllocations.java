package io.sharegpu.dra.allocate;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.dra.DraNames;
import io.sharegpu.dra.slice.ResourceSlices;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A core {@link Allocation} of a pod's demand as the {@code status.allocation} of each claim: one
 * result per GPU grant (request, driver, pool, device), a share ID (every device of ours allows
 * multiple allocations) and the consumed capacity ({@code compute} in thousandths, {@code memory}
 * in Mi; a whole GPU consumes all of both), and a node selector naming the node by {@code
 * metadata.name}, as kube-scheduler writes for node-local devices. Pure.
 */
public final class ClaimAllocations {
  private ClaimAllocations() {}

  /**
   * Returns claim name → allocation.
   *
   * @throws IllegalStateException if a granted GPU is not in the inventory or a container is not in
   *     the demand (the allocation was not made from them)
   */
  public static Map<String, AllocationResult> of(
      Allocation allocation,
      ClaimDemands.Demand demand,
      DraInventory inventory,
      Supplier<String> shareIds) {
    Map<String, List<DeviceRequestAllocationResult>> byClaim = new LinkedHashMap<>();
    for (ContainerGrant c : allocation.containers()) {
      ClaimDemands.RequestRef ref = demand.requests().get(c.container());
      if (ref == null) {
        throw new IllegalStateException("container " + c.container() + " is not in the demand");
      }
      for (GpuGrant g : c.gpus()) {
        DraInventory.DeviceRef device = inventory.device(g.uuid());
        if (device == null) {
          throw new IllegalStateException("GPU " + g.uuid() + " is not published");
        }
        var gpu = inventory.nodes().get(device.node()).gpu(g.uuid()).orElseThrow();
        int milli = g.isWhole() ? gpu.computeMilli() : g.computeMilli();
        long mib = g.isWhole() ? gpu.memoryMib() : g.memoryMib();
        Map<String, Quantity> consumed = new LinkedHashMap<>();
        consumed.put(DraNames.COMPUTE, new Quantity(Integer.toString(milli)));
        consumed.put(DraNames.MEMORY, ResourceSlices.mebibytes(mib));
        byClaim
            .computeIfAbsent(ref.claim(), k -> new ArrayList<>())
            .add(
                new DeviceRequestAllocationResultBuilder()
                    .withRequest(ref.request())
                    .withDriver(DraNames.DRIVER)
                    .withPool(device.pool())
                    .withDevice(device.device())
                    .withShareID(shareIds.get())
                    .withConsumedCapacity(consumed)
                    .build());
      }
    }
    Map<String, AllocationResult> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<DeviceRequestAllocationResult>> e : byClaim.entrySet()) {
      out.put(
          e.getKey(),
          new AllocationResultBuilder()
              .withNewDevices()
              .withResults(e.getValue())
              .endDevices()
              .withNodeSelector(nodeSelector(allocation.node()))
              .build());
    }
    return out;
  }

  /** Selects exactly the node {@code node} by {@code metadata.name}. */
  public static NodeSelector nodeSelector(String node) {
    return new NodeSelectorBuilder()
        .addNewNodeSelectorTerm()
        .addNewMatchField()
        .withKey("metadata.name")
        .withOperator("In")
        .withValues(node)
        .endMatchField()
        .endNodeSelectorTerm()
        .build();
  }
}
