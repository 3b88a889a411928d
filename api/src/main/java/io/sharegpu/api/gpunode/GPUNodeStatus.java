package io.sharegpu.api.gpunode;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the node agent found on the node: its GPUs, driver and enforcement, and when it looked. */
public class GPUNodeStatus {

  /** Enforcement value: an MPS control daemon runs, limits are enforced. */
  public static final String ENFORCEMENT_MPS = "mps";

  /** Enforcement value: advisory only. */
  public static final String ENFORCEMENT_NONE = "none";

  private List<GpuStatus> gpus = new ArrayList<>();
  private @Nullable String driverVersion;
  private @Nullable String enforcement;
  private @Nullable String heartbeatTime;
  private List<Condition> conditions = new ArrayList<>();

  public List<GpuStatus> getGpus() {
    return gpus;
  }

  public void setGpus(@Nullable List<GpuStatus> gpus) {
    this.gpus = gpus == null ? new ArrayList<>() : gpus;
  }

  /**
   * Returns how many GPUs (or MIG instances) {@code gpus} lists. Derived, written with the status
   * for the GPUS printer column (a JSON path cannot count), ignored when read.
   */
  @JsonProperty(value = "gpuCount", access = JsonProperty.Access.READ_ONLY)
  public int getGpuCount() {
    return gpus.size();
  }

  public @Nullable String getDriverVersion() {
    return driverVersion;
  }

  public void setDriverVersion(@Nullable String driverVersion) {
    this.driverVersion = driverVersion;
  }

  /** Returns {@code "mps"} or {@code "none"}. */
  public @Nullable String getEnforcement() {
    return enforcement;
  }

  public void setEnforcement(@Nullable String enforcement) {
    this.enforcement = enforcement;
  }

  /** Returns when the node agent last reported, RFC 3339. */
  public @Nullable String getHeartbeatTime() {
    return heartbeatTime;
  }

  public void setHeartbeatTime(@Nullable String heartbeatTime) {
    this.heartbeatTime = heartbeatTime;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(@Nullable List<Condition> conditions) {
    this.conditions = conditions == null ? new ArrayList<>() : conditions;
  }
}
