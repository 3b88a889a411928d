package io.sharegpu.api.gpunode;

import org.jspecify.annotations.Nullable;

/**
 * One GPU (or MIG instance) of a node.
 *
 * <p>{@code computeMilli} is 1000 for a full GPU and the slice share for a MIG instance (e.g.
 * 1g.18gb of 7 slices: 142); {@code memoryMiB} is the memory in MiB; {@code parentUuid} is set for
 * MIG instances only.
 */
public class GpuStatus {

  private @Nullable String uuid;
  private int index;
  private @Nullable String model;
  private long memoryMiB;
  private int computeMilli = 1000;
  private @Nullable String migProfile;
  private @Nullable String parentUuid;
  private boolean healthy = true;

  public GpuStatus() {}

  /** Returns a healthy full GPU. */
  public GpuStatus(String uuid, int index, String model, long memoryMiB) {
    this.uuid = uuid;
    this.index = index;
    this.model = model;
    this.memoryMiB = memoryMiB;
  }

  public @Nullable String getUuid() {
    return uuid;
  }

  public void setUuid(@Nullable String uuid) {
    this.uuid = uuid;
  }

  public int getIndex() {
    return index;
  }

  public void setIndex(int index) {
    this.index = index;
  }

  public @Nullable String getModel() {
    return model;
  }

  public void setModel(@Nullable String model) {
    this.model = model;
  }

  public long getMemoryMiB() {
    return memoryMiB;
  }

  public void setMemoryMiB(long memoryMiB) {
    this.memoryMiB = memoryMiB;
  }

  public int getComputeMilli() {
    return computeMilli;
  }

  public void setComputeMilli(int computeMilli) {
    this.computeMilli = computeMilli;
  }

  public @Nullable String getMigProfile() {
    return migProfile;
  }

  public void setMigProfile(@Nullable String migProfile) {
    this.migProfile = migProfile;
  }

  public @Nullable String getParentUuid() {
    return parentUuid;
  }

  public void setParentUuid(@Nullable String parentUuid) {
    this.parentUuid = parentUuid;
  }

  public boolean isHealthy() {
    return healthy;
  }

  public void setHealthy(boolean healthy) {
    this.healthy = healthy;
  }
}
