package io.sharegpu.api.sharepod;

/** Condition types and reasons of {@link SharePodStatus#getConditions()}. */
public final class SharePodConditions {

  /** The pod was bound to a node and GPUs. */
  public static final String SCHEDULED = "Scheduled";

  /** The pod runs and its containers are ready. */
  public static final String READY = "Ready";

  /** The GPU request and template are valid. */
  public static final String VALID = "Valid";

  // reasons (UpperCamelCase, as Kubernetes wants)

  public static final String REASON_VALID = "Valid";
  public static final String REASON_INVALID_REQUEST = "InvalidRequest";
  public static final String REASON_POD_CREATED = "PodCreated";
  public static final String REASON_WAITING_FOR_SCHEDULING = "WaitingForScheduling";
  public static final String REASON_UNSCHEDULABLE = "Unschedulable";
  public static final String REASON_BOUND = "Bound";
  public static final String REASON_POD_READY = "PodReady";
  public static final String REASON_POD_NOT_READY = "PodNotReady";
  public static final String REASON_POD_SUCCEEDED = "PodSucceeded";
  public static final String REASON_POD_FAILED = "PodFailed";
  public static final String REASON_POD_DELETED = "PodDeleted";

  private SharePodConditions() {}
}
