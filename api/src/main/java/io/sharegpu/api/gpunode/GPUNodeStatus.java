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
  private @Nullable GpuNodeAllocation allocation;

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

  /**
   * Returns how many GPUs (or MIG instances) of {@code gpus} are healthy. Derived like {@link
   * #getGpuCount()}, for the HEALTHY printer column; ignored when read.
   */
  @JsonProperty(value = "healthyGpus", access = JsonProperty.Access.READ_ONLY)
  public int getHealthyGpus() {
    int n = 0;
    for (GpuStatus g : gpus) {
      if (g.isHealthy()) {
        n++;
      }
    }
    return n;
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

  /**
   * Returns the scheduler extender's allocation summary (FREE and CORDONED columns); null until the
   * extender wrote one. Owned by the extender: the node agent's writes leave it alone.
   */
  public @Nullable GpuNodeAllocation getAllocation() {
    return allocation;
  }

  public void setAllocation(@Nullable GpuNodeAllocation allocation) {
    this.allocation = allocation;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(@Nullable List<Condition> conditions) {
    this.conditions = conditions == null ? new ArrayList<>() : conditions;
  }
}
