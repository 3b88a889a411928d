package io.sharegpu.dra;

/**
 * The names ShareGPU's DRA objects share: driver, DeviceClass, device attributes and consumable
 * capacities, and the scheduling gate that holds a pod until its claims are allocated.
 */
public final class DraNames {
  private DraNames() {}

  /** The DRA driver name; also the domain of our attributes and capacities. */
  public static final String DRIVER = "gpu.sharegpu.io";

  /** The DeviceClass that selects every device of {@link #DRIVER} (GPUs and MIG instances). */
  public static final String DEVICE_CLASS = "gpu.sharegpu.io";

  /** Consumable capacity: compute in thousandths of a GPU (1000 for a whole GPU). */
  public static final String COMPUTE = "compute";

  /** Consumable capacity: GPU memory (a quantity in bytes, published in Mi). */
  public static final String MEMORY = "memory";

  /** Attribute (string): the NVIDIA UUID, {@code GPU-...} or {@code MIG-...}. */
  public static final String UUID = "uuid";

  /** Attribute (string): the product name. */
  public static final String MODEL = "model";

  /** Attribute (int): GPU memory in MiB (also a capacity; the attribute is for CEL selectors). */
  public static final String MEMORY_MIB = "memoryMiB";

  /** Attribute (int): the device index on its node. */
  public static final String INDEX = "index";

  /** Attribute (string): {@code gpu} for a whole GPU, {@code mig} for a MIG instance. */
  public static final String TYPE = "type";

  /** Attribute (string): the parent GPU's UUID of a MIG instance. */
  public static final String PARENT_UUID = "parentUUID";

  /** Attribute (string): the MIG profile of a MIG instance, e.g. {@code 1g.10gb}. */
  public static final String MIG_PROFILE = "migProfile";

  /** {@link #TYPE} of a whole GPU. */
  public static final String TYPE_GPU = "gpu";

  /** {@link #TYPE} of a MIG instance. */
  public static final String TYPE_MIG = "mig";

  /**
   * The scheduling gate a pod carries until ShareGPU has allocated its claims; kube-scheduler does
   * not consider a gated pod, so its own allocator never sees the claims unallocated.
   */
  public static final String SCHEDULING_GATE = "sharegpu.io/dra-placement";

  /** The finalizer kube-scheduler puts on a claim it allocates; an allocator must set it too. */
  public static final String CLAIM_FINALIZER = "resource.kubernetes.io/delete-protection";
}
