package io.sharegpu.api.sharepod;

/** Condition types and reasons of {@link SharePodStatus#getConditions()}. */
public final class SharePodConditions {

  /** The pod was bound to a node and GPUs. */
  public static final String SCHEDULED = "Scheduled";

  /** The pod runs and its containers are ready. */
  public static final String READY = "Ready";

  /** The GPU request and template are valid. */
  public static final String VALID = "Valid";

  /**
   * kube-scheduler preempted the SharePod's pod to make room for a higher-priority pod. True
   * (reason {@link #REASON_PREEMPTION_BY_SCHEDULER}) from the preemption until a new pod started,
   * then False (reason {@link #REASON_NEW_POD_STARTED}); absent on a SharePod never preempted.
   */
  public static final String PREEMPTED = "Preempted";

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

  /** Preempted=True: the reason kube-scheduler puts on the victim's DisruptionTarget condition. */
  public static final String REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler";

  /** Preempted=False: the pod created after the preemption started. */
  public static final String REASON_NEW_POD_STARTED = "NewPodStarted";

  private SharePodConditions() {}
}
