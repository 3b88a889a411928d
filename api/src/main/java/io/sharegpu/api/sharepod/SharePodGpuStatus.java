package io.sharegpu.api.sharepod;

import org.jspecify.annotations.Nullable;

/** One GPU a SharePod's pod was assigned. */
public class SharePodGpuStatus {

  private @Nullable String uuid;
  private @Nullable String model;

  public SharePodGpuStatus() {}

  public SharePodGpuStatus(String uuid, @Nullable String model) {
    this.uuid = uuid;
    this.model = model;
  }

  public @Nullable String getUuid() {
    return uuid;
  }

  public void setUuid(@Nullable String uuid) {
    this.uuid = uuid;
  }

  public @Nullable String getModel() {
    return model;
  }

  public void setModel(@Nullable String model) {
    this.model = model;
  }
}
