package io.sharegpu.dra.slice;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.dra.DraNames;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Builds the ResourceSlices of one node from its GPUNode data, and the DeviceClass.
 *
 * <p>One device per schedulable GPU: a whole GPU, or each MIG instance of a GPU split into MIG (the
 * parent is not published, as in the ledger nothing uses a GPU whose instances are listed).
 * Unhealthy GPUs are left out. Every device allows multiple allocations (DRAConsumableCapacity) and
 * has two consumable capacities with request policies:
 *
 * <ul>
 *   <li>{@code compute}: the GPU's compute in thousandths (1000 for a whole GPU, less for a MIG
 *       instance); default {@code value} (a request that names no compute takes the whole device),
 *       valid range 1..value;
 *   <li>{@code memory}: the GPU memory; default the whole memory, valid range 1Mi..value in steps
 *       of 1Mi (the ledger counts MiB).
 * </ul>
 *
 * A claim for a share asks for both ({@code compute: 250}, {@code memory: 4Gi}); a claim for a
 * whole GPU asks {@code compute: 1000} (a MIG instance has less, so it never matches) and takes the
 * default memory, the whole GPU's.
 */
public final class ResourceSlices {
  private ResourceSlices() {}

  /** The label naming the node on each of its slices (to list and delete them). */
  public static final String NODE_LABEL = "gpu.sharegpu.io/node";

  /** The name of the node's {@code k}-th slice: {@code <node>-gpu.sharegpu.io-<k>}. */
  public static String sliceName(String node, int k) {
    return node + "-" + DraNames.DRIVER + "-" + k;
  }

  /**
   * Returns the node's slices: pool {@code node}, generation {@code generation} (raise it when the
   * devices change), <b>one device per slice</b> (one empty slice for a node without devices).
   *
   * <p>One device per slice, not one slice per node: kube-scheduler v1.34's allocator, with
   * DRAConsumableCapacity on, checks a request's capacity a second time against {@code
   * slice.devices[i]} where {@code i} is the position of the device within the request (0 for the
   * first device asked), not the device's position in the slice; with all of a node's devices in
   * one slice it only ever allocates the first devices of the slice (found on the real control
   * plane, see docs/dra.md). With one device per slice the position is right for requests of count
   * 1; claims ask for k whole GPUs as k requests of count 1.
   */
  public static List<ResourceSlice> forNode(String node, List<GpuStatus> gpus, long generation) {
    List<Device> devices = devices(gpus);
    List<ResourceSlice> out = new ArrayList<>();
    int count = Math.max(1, devices.size());
    for (int k = 0; k < count; k++) {
      out.add(
          new ResourceSliceBuilder()
              .withNewMetadata()
              .withName(sliceName(node, k))
              .withLabels(Map.of(NODE_LABEL, node))
              .endMetadata()
              .withNewSpec()
              .withDriver(DraNames.DRIVER)
              .withNodeName(node)
              .withNewPool()
              .withName(node)
              .withGeneration(generation)
              .withResourceSliceCount((long) count)
              .endPool()
              .withDevices(devices.isEmpty() ? List.of() : List.of(devices.get(k)))
              .endSpec()
              .build());
    }
    return out;
  }

  /** Returns the devices for {@code gpus}, in their order. */
  public static List<Device> devices(List<GpuStatus> gpus) {
    Set<String> parents = new HashSet<>();
    for (GpuStatus g : gpus) {
      if (g.getParentUuid() != null) {
        parents.add(g.getParentUuid());
      }
    }
    List<Device> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (GpuStatus g : gpus) {
      String uuid = g.getUuid();
      if (uuid == null || uuid.isBlank() || !g.isHealthy() || parents.contains(uuid)) {
        continue;
      }
      String name = deviceName(g);
      if (!names.add(name)) {
        name = label(name + "-" + g.getIndex());
        names.add(name);
      }
      out.add(device(name, g));
    }
    return out;
  }

  /**
   * A device name (a DNS label) from the GPU's UUID: lower case, other characters than letters,
   * digits and '-' replaced by '-', at most 63 characters.
   */
  public static String deviceName(GpuStatus gpu) {
    String uuid = gpu.getUuid();
    return label(uuid == null ? "gpu-" + gpu.getIndex() : uuid);
  }

  private static String label(String s) {
    String l = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    if (l.length() > 63) {
      l = l.substring(0, 63);
    }
    l = l.replaceAll("^-+", "").replaceAll("-+$", "");
    return l.isEmpty() ? "gpu" : l;
  }

  private static Device device(String name, GpuStatus g) {
    boolean mig = g.getParentUuid() != null;
    Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
    attributes.put(DraNames.UUID, string(g.getUuid()));
    attributes.put(DraNames.MODEL, string(g.getModel() == null ? "" : g.getModel()));
    attributes.put(
        DraNames.MEMORY_MIB, new DeviceAttributeBuilder().withInt(g.getMemoryMiB()).build());
    attributes.put(
        DraNames.INDEX, new DeviceAttributeBuilder().withInt((long) g.getIndex()).build());
    attributes.put(DraNames.TYPE, string(mig ? DraNames.TYPE_MIG : DraNames.TYPE_GPU));
    if (mig) {
      attributes.put(DraNames.PARENT_UUID, string(g.getParentUuid()));
      if (g.getMigProfile() != null) {
        attributes.put(DraNames.MIG_PROFILE, string(g.getMigProfile()));
      }
    }
    Map<String, DeviceCapacity> capacity = new LinkedHashMap<>();
    int milli = g.getComputeMilli();
    capacity.put(
        DraNames.COMPUTE, capacity(new Quantity(Integer.toString(milli)), new Quantity("1"), null));
    Quantity memory = mebibytes(g.getMemoryMiB());
    capacity.put(DraNames.MEMORY, capacity(memory, new Quantity("1Mi"), new Quantity("1Mi")));
    return new DeviceBuilder()
        .withName(name)
        .withAllowMultipleAllocations(true)
        .withAttributes(attributes)
        .withCapacity(capacity)
        .build();
  }

  /** A capacity of {@code value}: default the whole value, valid range min..value (by step). */
  private static DeviceCapacity capacity(Quantity value, Quantity min, @Nullable Quantity step) {
    CapacityRequestPolicyRange range = new CapacityRequestPolicyRange();
    range.setMin(min);
    range.setMax(value);
    if (step != null) {
      range.setStep(step);
    }
    CapacityRequestPolicy policy = new CapacityRequestPolicy();
    policy.setDefault(value);
    policy.setValidRange(range);
    DeviceCapacity c = new DeviceCapacity();
    c.setValue(value);
    c.setRequestPolicy(policy);
    return c;
  }

  /** {@code mib} as a quantity in Mi. */
  public static Quantity mebibytes(long mib) {
    return new Quantity(mib + "Mi");
  }

  private static DeviceAttribute string(String s) {
    return new DeviceAttributeBuilder().withString(s).build();
  }

  /** The DeviceClass {@code gpu.sharegpu.io}: every device of our driver. */
  public static DeviceClass deviceClass() {
    return new DeviceClassBuilder()
        .withNewMetadata()
        .withName(DraNames.DEVICE_CLASS)
        .endMetadata()
        .withNewSpec()
        .addNewSelector()
        .withNewCel()
        .withExpression("device.driver == \"" + DraNames.DRIVER + "\"")
        .endCel()
        .endSelector()
        .endSpec()
        .build();
  }
}
