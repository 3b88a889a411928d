package io.sharegpu.dra.allocate;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.OverCommitException;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.dra.DraNames;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's GPUs and their use as DRA sees them, turned into a {@link Ledger}: one node per
 * pool of our driver (the newest generation of each pool), one GPU per device (UUID, model, index,
 * MIG parent from the attributes; compute and memory from the capacities), and one allocation per
 * allocated claim holding what its results consumed ({@code consumedCapacity}; a result without it
 * holds the whole device). Results on devices no slice publishes any more are ignored, as
 * kube-scheduler ignores them. Pure: built from listed objects, no I/O.
 */
public final class DraInventory {

  /** Where a GPU is published: pool, device name and node. */
  public record DeviceRef(String pool, String device, String node) {}

  private final Map<String, DeviceRef> byUuid = new HashMap<>();
  private final Map<String, String> uuidByDevice = new HashMap<>();
  private final Map<String, GpuNode> nodes = new LinkedHashMap<>();
  private final List<Allocation> allocations = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  private DraInventory() {}

  /** Builds the inventory from all ResourceSlices and all ResourceClaims of the cluster. */
  public static DraInventory of(List<ResourceSlice> slices, List<ResourceClaim> claims) {
    DraInventory inv = new DraInventory();
    Map<String, Long> newest = new HashMap<>();
    for (ResourceSlice s : slices) {
      if (ours(s)) {
        newest.merge(s.getSpec().getPool().getName(), generation(s), Math::max);
      }
    }
    Map<String, List<Gpu>> gpusByNode = new LinkedHashMap<>();
    for (ResourceSlice s : slices) {
      if (!ours(s) || generation(s) != newest.get(s.getSpec().getPool().getName())) {
        continue;
      }
      String pool = s.getSpec().getPool().getName();
      String node = s.getSpec().getNodeName();
      List<Gpu> gpus = gpusByNode.computeIfAbsent(node, n -> new ArrayList<>());
      for (Device d : s.getSpec().getDevices()) {
        Gpu gpu = gpu(d);
        if (gpu == null) {
          inv.problems.add("device " + pool + "/" + d.getName() + " has no uuid attribute");
          continue;
        }
        gpus.add(gpu);
        inv.byUuid.put(gpu.uuid(), new DeviceRef(pool, d.getName(), node));
        inv.uuidByDevice.put(key(pool, d.getName()), gpu.uuid());
      }
    }
    for (Map.Entry<String, List<Gpu>> e : gpusByNode.entrySet()) {
      inv.nodes.put(e.getKey(), GpuNode.of(e.getKey(), e.getValue()));
    }
    for (ResourceClaim c : claims) {
      Allocation a = inv.allocationOf(c);
      if (a != null) {
        inv.allocations.add(a);
      }
    }
    return inv;
  }

  /**
   * A fresh ledger with every node and every allocation; over-commits land in {@link #problems}.
   */
  public Ledger ledger() {
    Ledger ledger = new Ledger();
    for (GpuNode n : nodes.values()) {
      ledger.putNode(n);
    }
    for (Allocation a : allocations) {
      try {
        ledger.commit(a);
      } catch (OverCommitException e) {
        problems.add(e.getMessage());
      }
    }
    return ledger;
  }

  /** Where GPU {@code uuid} is published, or null. */
  public @Nullable DeviceRef device(String uuid) {
    return byUuid.get(uuid);
  }

  /** The GPU published as {@code pool/device}, or null. */
  public @Nullable String uuid(String pool, String device) {
    return uuidByDevice.get(key(pool, device));
  }

  /** The nodes with at least one published device of our driver. */
  public Map<String, GpuNode> nodes() {
    return Map.copyOf(nodes);
  }

  /** One allocation per allocated claim of our driver, keyed by the claim's UID. */
  public List<Allocation> allocations() {
    return List.copyOf(allocations);
  }

  /** What did not add up: devices without UUID, over-committed GPUs (found by {@link #ledger}). */
  public List<String> problems() {
    return List.copyOf(problems);
  }

  private @Nullable Allocation allocationOf(ResourceClaim c) {
    if (c.getStatus() == null || c.getStatus().getAllocation() == null) {
      return null;
    }
    var devices = c.getStatus().getAllocation().getDevices();
    if (devices == null || devices.getResults() == null) {
      return null;
    }
    List<ContainerGrant> grants = new ArrayList<>();
    String node = null;
    int i = 0;
    for (DeviceRequestAllocationResult r : devices.getResults()) {
      if (!DraNames.DRIVER.equals(r.getDriver())) {
        continue;
      }
      String uuid = uuid(r.getPool(), r.getDevice());
      if (uuid == null) {
        continue; // a device no slice publishes any more
      }
      DeviceRef ref = byUuid.get(uuid);
      Gpu gpu = nodes.get(ref.node()).gpu(uuid).orElseThrow();
      int milli = gpu.computeMilli();
      long mib = gpu.memoryMib();
      Map<String, Quantity> consumed = r.getConsumedCapacity();
      if (consumed != null && !consumed.isEmpty()) {
        milli = (int) Math.min(gpu.computeMilli(), number(consumed.get(DraNames.COMPUTE), milli));
        mib = mebibytes(consumed.get(DraNames.MEMORY), mib);
      }
      // a whole physical GPU taken whole is exclusive; anything less is a share
      if (milli >= 1000) {
        mib = gpu.memoryMib();
      }
      node = ref.node();
      grants.add(
          new ContainerGrant(
              r.getRequest() + "#" + i++, List.of(new GpuGrant(uuid, milli, mib)), milli));
    }
    if (grants.isEmpty() || node == null) {
      return null;
    }
    String key = c.getMetadata().getNamespace() + "/" + c.getMetadata().getName();
    return new Allocation(key, c.getMetadata().getUid(), node, grants, AllocationState.BOUND);
  }

  private static @Nullable Gpu gpu(Device d) {
    Map<String, DeviceAttribute> a = d.getAttributes() == null ? Map.of() : d.getAttributes();
    String uuid = string(a.get(DraNames.UUID));
    if (uuid == null || uuid.isBlank()) {
      return null;
    }
    Map<String, DeviceCapacity> cap = d.getCapacity() == null ? Map.of() : d.getCapacity();
    DeviceCapacity compute = cap.get(DraNames.COMPUTE);
    DeviceCapacity memory = cap.get(DraNames.MEMORY);
    int milli =
        compute == null
            ? 1000
            : (int) Math.max(1, Math.min(1000, number(compute.getValue(), 1000)));
    long mib = memory == null ? 0 : mebibytes(memory.getValue(), 0);
    DeviceAttribute index = a.get(DraNames.INDEX);
    String model = string(a.get(DraNames.MODEL));
    return new Gpu(
        uuid,
        index == null || index.getInt() == null ? 0 : index.getInt().intValue(),
        model == null ? "" : model,
        mib,
        milli,
        true,
        string(a.get(DraNames.PARENT_UUID)),
        string(a.get(DraNames.MIG_PROFILE)));
  }

  private static boolean ours(ResourceSlice s) {
    return s.getSpec() != null
        && DraNames.DRIVER.equals(s.getSpec().getDriver())
        && s.getSpec().getNodeName() != null
        && s.getSpec().getPool() != null
        && s.getSpec().getDevices() != null;
  }

  private static long generation(ResourceSlice s) {
    Long g = s.getSpec().getPool().getGeneration();
    return g == null ? 0 : g;
  }

  private static String key(String pool, String device) {
    return pool + "/" + device;
  }

  private static @Nullable String string(@Nullable DeviceAttribute a) {
    return a == null ? null : a.getString();
  }

  /** A quantity as a whole number (rounded up), or {@code otherwise} when absent. */
  static long number(@Nullable Quantity q, long otherwise) {
    if (q == null) {
      return otherwise;
    }
    return Quantity.getAmountInBytes(q).setScale(0, RoundingMode.CEILING).longValueExact();
  }

  /** A quantity of bytes in MiB (rounded up), or {@code otherwise} when absent. */
  static long mebibytes(@Nullable Quantity q, long otherwise) {
    if (q == null) {
      return otherwise;
    }
    BigDecimal bytes = Quantity.getAmountInBytes(q);
    return bytes
        .divide(BigDecimal.valueOf(1024L * 1024L), 0, RoundingMode.CEILING)
        .longValueExact();
  }
}
