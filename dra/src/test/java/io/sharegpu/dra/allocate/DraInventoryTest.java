package io.sharegpu.dra.allocate;

import static io.sharegpu.dra.allocate.Claims.allocated;
import static io.sharegpu.dra.allocate.Claims.claim;
import static io.sharegpu.dra.allocate.Claims.share;
import static io.sharegpu.dra.allocate.Claims.whole;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.placement.BinPackPolicy;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.dra.DraNames;
import io.sharegpu.dra.slice.ResourceSlices;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DraInventoryTest {

  private static List<ResourceSlice> node(String node, int gpus, long generation) {
    List<GpuStatus> list = new ArrayList<>();
    for (int i = 0; i < gpus; i++) {
      list.add(new GpuStatus("GPU-" + node + "-" + i, i, "NVIDIA A100", 81920));
    }
    return ResourceSlices.forNode(node, list, generation);
  }

  @Test
  void theLedgerHoldsEveryPublishedGpuAndWhatAllocatedClaimsConsumed() {
    List<ResourceSlice> slices = new ArrayList<>(node("n1", 2, 1));
    var a = allocated(claim("a", share("gpu", 250, "10Gi")), "n1", "gpu-n1-0", "250", "10Gi");
    var b = allocated(claim("b", whole("gpu", 1)), "n1", "gpu-n1-1", "1000", "80Gi");
    var pending = claim("c", share("gpu", 500, "1Gi"));

    DraInventory inv = DraInventory.of(slices, List.of(a, b, pending));
    Ledger ledger = inv.ledger();

    assertThat(inv.problems()).isEmpty();
    assertThat(inv.device("GPU-n1-1"))
        .isEqualTo(new DraInventory.DeviceRef("n1", "gpu-n1-1", "n1"));
    assertThat(inv.uuid("n1", "gpu-n1-0")).isEqualTo("GPU-n1-0");
    NodeUsage u = ledger.nodeUsage("n1");
    assertThat(u.usedMilli(0)).isEqualTo(250);
    assertThat(u.usedMemoryMib(0)).isEqualTo(10240);
    assertThat(u.usedMilli(1)).isEqualTo(1000);
    assertThat(u.isExclusive(1)).isTrue();
    assertThat(inv.allocations()).extracting(Allocation::podUid).containsExactly("uid-a", "uid-b");
  }

  @Test
  void olderGenerationsAndDevicesNoLongerPublishedAreIgnored() {
    List<ResourceSlice> slices = new ArrayList<>(node("n1", 1, 1));
    slices.addAll(node("n1", 2, 2));
    var stale = allocated(claim("s", share("gpu", 250, "1Gi")), "gone", "gpu-gone-0", "250", "1Gi");

    DraInventory inv = DraInventory.of(slices, List.of(stale));

    assertThat(inv.nodes().get("n1").gpus()).hasSize(2);
    assertThat(inv.allocations()).isEmpty();
  }

  @Test
  void overCommittedGpusAreReportedNotHidden() {
    var a = allocated(claim("a", share("gpu", 700, "1Gi")), "n1", "gpu-n1-0", "700", "1Gi");
    var b = allocated(claim("b", share("gpu", 700, "1Gi")), "n1", "gpu-n1-0", "700", "1Gi");

    DraInventory inv = DraInventory.of(node("n1", 1, 1), List.of(a, b));
    inv.ledger();

    assertThat(inv.problems()).hasSize(1);
  }

  @Test
  void aPlacementBecomesOneResultPerGrantWithShareIdConsumedCapacityAndTheNode() {
    DraInventory inv = DraInventory.of(node("n1", 2, 1), List.of());
    var claims = List.of(claim("a", share("gpu", 250, "10Gi")), claim("b", whole("gpus", 1)));
    ClaimDemands.Demand demand = (ClaimDemands.Demand) ClaimDemands.of("ns/p", "uid-p", claims);
    Allocation allocation =
        new Placement(inv.ledger(), new BinPackPolicy()).place(demand.demand()).orElseThrow();
    AtomicInteger ids = new AtomicInteger();

    Map<String, AllocationResult> results =
        ClaimAllocations.of(allocation, demand, inv, () -> "share-" + ids.incrementAndGet());

    assertThat(results).containsOnlyKeys("a", "b");
    DeviceRequestAllocationResult share = results.get("a").getDevices().getResults().get(0);
    DeviceRequestAllocationResult gpu = results.get("b").getDevices().getResults().get(0);
    assertThat(share.getRequest()).isEqualTo("gpu");
    assertThat(share.getDriver()).isEqualTo(DraNames.DRIVER);
    assertThat(share.getPool()).isEqualTo("n1");
    assertThat(share.getConsumedCapacity())
        .containsEntry(DraNames.COMPUTE, new Quantity("250"))
        .containsEntry(DraNames.MEMORY, new Quantity("10240Mi"));
    assertThat(gpu.getConsumedCapacity())
        .containsEntry(DraNames.COMPUTE, new Quantity("1000"))
        .containsEntry(DraNames.MEMORY, new Quantity("81920Mi"));
    assertThat(gpu.getDevice()).isNotEqualTo(share.getDevice());
    assertThat(List.of(share.getShareID(), gpu.getShareID())).doesNotHaveDuplicates();
    var term = results.get("a").getNodeSelector().getNodeSelectorTerms().get(0);
    assertThat(term.getMatchFields().get(0).getKey()).isEqualTo("metadata.name");
    assertThat(term.getMatchFields().get(0).getValues()).containsExactly("n1");

    // what was written reads back as the same use of the GPUs
    var written = new ArrayList<ResourceClaim>();
    for (var c : claims) {
      var copy = new ResourceClaimBuilder(c).build();
      copy.setStatus(
          new ResourceClaimStatusBuilder()
              .withAllocation(results.get(c.getMetadata().getName()))
              .build());
      written.add(copy);
    }
    Ledger after = DraInventory.of(node("n1", 2, 1), written).ledger();
    int share0 = after.nodeUsage("n1").position(inv.uuid("n1", share.getDevice()));
    int whole0 = after.nodeUsage("n1").position(inv.uuid("n1", gpu.getDevice()));
    assertThat(after.nodeUsage("n1").usedMilli(share0)).isEqualTo(250);
    assertThat(after.nodeUsage("n1").isExclusive(whole0)).isTrue();
  }
}
