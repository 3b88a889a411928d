package io.sharegpu.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.FgdPolicy;
import io.sharegpu.core.policy.Workload;
import io.sharegpu.core.policy.WorkloadAware;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.dra.TraceReplay.Figures;
import io.sharegpu.dra.TraceReplay.Snapshot;
import io.sharegpu.dra.TraceReplay.TracePod;
import io.sharegpu.dra.allocate.ClaimDemands;
import io.sharegpu.dra.allocate.DraInventory;
import io.sharegpu.dra.slice.ResourceSlices;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The comparison of {@code DraPlacementE2E} in process, on a larger slice of the trace: 64 nodes x
 * 8 GPUs published as ResourceSlices, the same claims turned into demands by {@link ClaimDemands},
 * placed by an emulation of DRA's first fit (a random node among those where the claims fit, as
 * kube-scheduler breaks ties at random, and there the first free devices in order) and by core's
 * policies. No control plane: kube-scheduler's own figures are in the e2e test.
 */
class FirstFitComparisonTest {
  private static final int NODES = 64;
  private static final int GPUS_PER_NODE = 8;
  private static final long GPU_MEMORY_MIB = 81920;
  private static final long SEED = 42;

  @Test
  void shareGpuLeavesLessFragmentationThanFirstFitOnTheSameClaims() throws IOException {
    long capacity = (long) NODES * GPUS_PER_NODE * 1000;
    List<TracePod> trace = TraceReplay.slice(capacity, GPUS_PER_NODE, Integer.MAX_VALUE, SEED);
    Workload workload = Workload.fit(TraceReplay.shapes(trace), FgdPolicy.COVERAGE);
    List<ResourceSlice> slices = new ArrayList<>();
    List<String> nodes = new ArrayList<>();
    for (int n = 0; n < NODES; n++) {
      String node = "node-" + n;
      nodes.add(node);
      List<GpuStatus> gpus = new ArrayList<>();
      for (int i = 0; i < GPUS_PER_NODE; i++) {
        gpus.add(new GpuStatus("GPU-" + node + "-" + i, i, "NVIDIA A100", GPU_MEMORY_MIB));
      }
      slices.addAll(ResourceSlices.forNode(node, gpus, 1));
    }
    DraInventory inventory = DraInventory.of(slices, List.of());

    Map<String, Figures> figures = new LinkedHashMap<>();
    figures.put("DRA first fit (emulated)", run(inventory, trace, workload, nodes, null));
    for (String policy : List.of("binpack", "fgd", "sharegpu")) {
      figures.put(
          "ShareGPU placement (" + policy + ")", run(inventory, trace, workload, nodes, policy));
    }

    StringBuilder table =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "In-process placement of %d trace pods (%d nodes x %d GPUs, seed %d):%n%s",
                trace.size(),
                NODES,
                GPUS_PER_NODE,
                SEED,
                Figures.HEADER));
    figures.forEach((name, f) -> table.append(System.lineSeparator()).append(f.row(name)));
    System.out.println(table);

    Figures firstFit = figures.get("DRA first fit (emulated)");
    Figures shareGpu = figures.get("ShareGPU placement (sharegpu)");
    assertThat(firstFit.at80().partlyUsedGpus()).isGreaterThan(0);
    assertThat(shareGpu.at80().fragmentationPct())
        .as("FGD fragmentation at 80%% arrived, ShareGPU vs first fit")
        .isLessThan(firstFit.at80().fragmentationPct());
  }

  /** Places the trace on a fresh ledger: first fit when {@code policy} is null. */
  private static Figures run(
      DraInventory inventory,
      List<TracePod> trace,
      Workload workload,
      List<String> nodes,
      String policy) {
    Ledger ledger = inventory.ledger();
    PlacementPolicy p = policy == null ? null : PlacementPolicies.byName(policy, SEED);
    if (p instanceof WorkloadAware aware) {
      aware.prime(TraceReplay.shapes(trace));
    }
    Placement placement = p == null ? null : new Placement(ledger, p);
    Random random = new Random(SEED);
    long capacity = (long) nodes.size() * GPUS_PER_NODE * 1000;
    long arrived = 0;
    int placed = 0;
    int failed = 0;
    double firstFailure = Double.NaN;
    Snapshot at80 = null;
    for (int k = 0; k < trace.size(); k++) {
      TracePod t = trace.get(k);
      arrived += (long) t.numGpu() * Math.min(1000, t.gpuMilli());
      ResourceClaim claim = claim("p-" + k, t);
      ClaimDemands.Demand demand =
          (ClaimDemands.Demand) ClaimDemands.of("trace/p-" + k, "uid-" + k, List.of(claim));
      Optional<Allocation> a;
      if (p == null) {
        a = firstFit(ledger, demand.demand(), nodes, random);
      } else {
        p.observe(demand.demand());
        a = placement.place(demand.demand());
      }
      if (a.isPresent()) {
        ledger.commit(a.get()); // throws on any over-commit
        placed++;
      } else {
        failed++;
        if (Double.isNaN(firstFailure)) {
          firstFailure = arrived * 100.0 / capacity;
        }
      }
      if (at80 == null && arrived * 100 >= 80 * capacity) {
        at80 = Snapshot.of(ledger, nodes, workload);
      }
    }
    Snapshot end = Snapshot.of(ledger, nodes, workload);
    return new Figures(placed, failed, firstFailure, end, at80 == null ? end : at80);
  }

  /** DRA's first fit: a random node where every request fits, there the first devices in order. */
  private static Optional<Allocation> firstFit(
      Ledger ledger, PodDemand pod, List<String> nodes, Random random) {
    List<Allocation> feasible = new ArrayList<>();
    for (String node : nodes) {
      Allocation a = firstFitOn(ledger.nodeUsage(node), pod);
      if (a != null) {
        feasible.add(a);
      }
    }
    return feasible.isEmpty()
        ? Optional.empty()
        : Optional.of(feasible.get(random.nextInt(feasible.size())));
  }

  private static Allocation firstFitOn(NodeUsage u, PodDemand pod) {
    int n = u.size();
    int[] milli = new int[n];
    long[] mem = new long[n];
    boolean[] whole = new boolean[n];
    List<ContainerGrant> grants = new ArrayList<>();
    for (GpuDemand d : pod.containers()) {
      List<GpuGrant> gpus = new ArrayList<>();
      if (d.isShare()) {
        for (int i = 0; i < n && gpus.isEmpty(); i++) {
          if (!whole[i]
              && !u.isExclusive(i)
              && u.freeMilli(i) - milli[i] >= d.computeMilli()
              && u.freeMemoryMib(i) - mem[i] >= d.memoryMib()) {
            milli[i] += d.computeMilli();
            mem[i] += d.memoryMib();
            gpus.add(new GpuGrant(u.gpu(i).uuid(), d.computeMilli(), d.memoryMib()));
          }
        }
      } else {
        for (int i = 0; i < n && gpus.size() < d.wholeGpus(); i++) {
          if (!whole[i] && milli[i] == 0 && u.holderCount(i) == 0) {
            whole[i] = true;
            gpus.add(new GpuGrant(u.gpu(i).uuid(), 1000, u.memoryMib(i)));
          }
        }
      }
      if (gpus.size() < Math.max(1, d.wholeGpus())) {
        return null;
      }
      grants.add(new ContainerGrant(d.container(), gpus, d.limitMilli()));
    }
    return new Allocation(
        pod.podKey(), pod.podUid(), u.node().name(), grants, AllocationState.RESERVED);
  }

  /** The claim of {@code DraPlacementE2E}: a share with its memory, or k whole-GPU requests. */
  private static ResourceClaim claim(String name, TracePod t) {
    List<DeviceRequest> requests = new ArrayList<>();
    if (t.gpuMilli() < 1000) {
      requests.add(
          request(
              "gpu",
              Map.of(
                  DraNames.COMPUTE,
                  new Quantity(Integer.toString(t.gpuMilli())),
                  DraNames.MEMORY,
                  new Quantity(t.gpuMilli() * GPU_MEMORY_MIB / 1000 + "Mi"))));
    } else {
      for (int i = 0; i < t.numGpu(); i++) {
        requests.add(request("gpu-" + i, Map.of(DraNames.COMPUTE, new Quantity("1000"))));
      }
    }
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("trace")
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .withRequests(requests)
        .endDevices()
        .endSpec()
        .build();
  }

  private static DeviceRequest request(String name, Map<String, Quantity> capacity) {
    return new DeviceRequestBuilder()
        .withName(name)
        .withNewExactly()
        .withDeviceClassName(DraNames.DEVICE_CLASS)
        .withCount(1L)
        .withNewCapacity()
        .withRequests(capacity)
        .endCapacity()
        .endExactly()
        .build();
  }
}
