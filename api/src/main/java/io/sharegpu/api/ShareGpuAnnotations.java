package io.sharegpu.api;

/**
 * Annotation and label keys.
 *
 * <p>Request annotations are set by users on pods (or SharePod templates). Assignment annotations
 * are written by the extender's bind, before the Binding is created, at pod level and per container
 * ({@link #forContainer}); containers read the per-container ones through the downward API (see
 * {@link ShareGpuEnv}).
 */
public final class ShareGpuAnnotations {

  // requests, set by users

  /** Compute cap of a share in thousandths of a GPU: request &lt;= limit &lt;= 1000. */
  public static final String GPU_LIMIT_MILLI = "sharegpu.io/gpu-limit-milli";

  /** Allowed GPU models, comma separated, matched case-insensitively on the product name. */
  public static final String GPU_MODELS = "sharegpu.io/gpu-models";

  /** GPUs to pin to, comma separated UUIDs. */
  public static final String GPU_UUIDS = "sharegpu.io/gpu-uuids";

  /** GPUs to avoid, comma separated UUIDs. */
  public static final String GPU_EXCLUDE_UUIDS = "sharegpu.io/gpu-exclude-uuids";

  // assignment, written by the extender's bind

  /** Comma list of all GPU UUIDs of the pod, in container order (each UUID once). */
  public static final String ASSIGNED_GPUS = "sharegpu.io/assigned-gpus";

  /** GPU memory assigned to the pod (or, suffixed, to one container) in MiB, over all its GPUs. */
  public static final String ASSIGNED_MEMORY_MIB = "sharegpu.io/assigned-memory-mib";

  /** Value for {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE}: ceil(limitMilli / 10), e.g. "50". */
  public static final String MPS_ACTIVE_THREAD_PERCENTAGE =
      "sharegpu.io/mps-active-thread-percentage";

  /** Value for {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}, e.g. "0=10240M" or "0=81559M,1=81559M". */
  public static final String MPS_PINNED_MEM_LIMIT = "sharegpu.io/mps-pinned-mem-limit";

  /** The node the extender bound the pod to. */
  public static final String ASSIGNED_NODE = "sharegpu.io/assigned-node";

  /** When the extender bound the pod, RFC 3339. */
  public static final String ASSIGNED_AT = "sharegpu.io/assigned-at";

  /**
   * Set by the extender on a pod waiting for GPUs when GPUs that fit it became free in a way
   * kube-scheduler may not see (its informer saw a delete first, a GPUNode changed): the update
   * makes kube-scheduler try the pod again. RFC 3339 time. Only this annotation, only on pods not
   * yet bound (the chart's ValidatingAdmissionPolicy holds the extender to that).
   */
  public static final String REQUEUED_AT = "sharegpu.io/requeued-at";

  /** Label on pods owned by a SharePod; the value is the SharePod's name. */
  public static final String SHAREPOD_LABEL = "sharegpu.io/sharepod";

  /** The kube-scheduler profile that calls the ShareGPU extender. */
  public static final String SCHEDULER_NAME = "sharegpu-scheduler";

  /** Default host path of the MPS pipe directory, mounted into containers at the same path. */
  public static final String MPS_PIPE_DIRECTORY = "/tmp/nvidia-mps";

  /**
   * The longest container name that still gives valid per-container keys: the name part of an
   * annotation key is at most 63 characters, and the longest base is {@code
   * mps-active-thread-percentage.} (29 characters).
   */
  public static final int MAX_GPU_CONTAINER_NAME_LENGTH = 63 - 29;

  private ShareGpuAnnotations() {}

  /**
   * Returns the per-container form of an assignment key, e.g. {@code forContainer(ASSIGNED_GPUS,
   * "trainer")} is {@code "sharegpu.io/assigned-gpus.trainer"}.
   */
  public static String forContainer(String key, String container) {
    if (container.isEmpty()) {
      throw new IllegalArgumentException("container name must not be empty");
    }
    return key + "." + container;
  }
}
