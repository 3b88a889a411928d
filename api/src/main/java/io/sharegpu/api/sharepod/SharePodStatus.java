package io.sharegpu.api.sharepod;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where a SharePod's pod runs and how it is doing; written by the SharePod controller. {@code
 * gpuList} repeats the GPU UUIDs as one comma string for the GPUS column.
 */
public class SharePodStatus {

  public static final String PHASE_PENDING = "Pending";
  public static final String PHASE_SCHEDULED = "Scheduled";
  public static final String PHASE_RUNNING = "Running";
  public static final String PHASE_SUCCEEDED = "Succeeded";
  public static final String PHASE_FAILED = "Failed";

  private @Nullable String phase;
  private @Nullable String podName;
  private @Nullable String nodeName;
  private List<SharePodGpuStatus> gpus = new ArrayList<>();
  private @Nullable String gpuList;
  private @Nullable Long memoryMiB;
  private @Nullable Long observedGeneration;
  private List<Condition> conditions = new ArrayList<>();
  private @Nullable String message;

  public @Nullable String getPhase() {
    return phase;
  }

  public void setPhase(@Nullable String phase) {
    this.phase = phase;
  }

  public @Nullable String getPodName() {
    return podName;
  }

  public void setPodName(@Nullable String podName) {
    this.podName = podName;
  }

  public @Nullable String getNodeName() {
    return nodeName;
  }

  public void setNodeName(@Nullable String nodeName) {
    this.nodeName = nodeName;
  }

  public List<SharePodGpuStatus> getGpus() {
    return gpus;
  }

  public void setGpus(@Nullable List<SharePodGpuStatus> gpus) {
    this.gpus = gpus == null ? new ArrayList<>() : gpus;
  }

  public @Nullable String getGpuList() {
    return gpuList;
  }

  public void setGpuList(@Nullable String gpuList) {
    this.gpuList = gpuList;
  }

  public @Nullable Long getMemoryMiB() {
    return memoryMiB;
  }

  public void setMemoryMiB(@Nullable Long memoryMiB) {
    this.memoryMiB = memoryMiB;
  }

  public @Nullable Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(@Nullable Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(@Nullable List<Condition> conditions) {
    this.conditions = conditions == null ? new ArrayList<>() : conditions;
  }

  public @Nullable String getMessage() {
    return message;
  }

  public void setMessage(@Nullable String message) {
    this.message = message;
  }
}
