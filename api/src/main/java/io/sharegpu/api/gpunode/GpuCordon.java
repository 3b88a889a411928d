package io.sharegpu.api.gpunode;

import org.jspecify.annotations.Nullable;

/**
 * One GPU an operator has cordoned: no new pod is placed on it, the pods already on it stay. Kept
 * in {@code spec.cordonedGpus} of the GPUNode, written by {@code kubectl sharegpu cordon} (or any
 * client) and read by the scheduler extender.
 */
public class GpuCordon {

  private @Nullable String uuid;
  private @Nullable String reason;
  private @Nullable String time;

  public GpuCordon() {}

  public GpuCordon(String uuid, @Nullable String reason, @Nullable String time) {
    this.uuid = uuid;
    this.reason = reason;
    this.time = time;
  }

  /** Returns the UUID of the GPU or MIG instance. */
  public @Nullable String getUuid() {
    return uuid;
  }

  public void setUuid(@Nullable String uuid) {
    this.uuid = uuid;
  }

  /** Returns why it was cordoned, free text (e.g. "Xid 79, card to be replaced"). */
  public @Nullable String getReason() {
    return reason;
  }

  public void setReason(@Nullable String reason) {
    this.reason = reason;
  }

  /** Returns when it was cordoned, RFC 3339. */
  public @Nullable String getTime() {
    return time;
  }

  public void setTime(@Nullable String time) {
    this.time = time;
  }
}
