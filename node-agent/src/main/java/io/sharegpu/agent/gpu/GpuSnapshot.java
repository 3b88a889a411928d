package io.sharegpu.agent.gpu;

import java.util.List;

/**
 * What one look at the node's GPUs found: driver, schedulable devices (full GPUs and MIG instances,
 * by index) and the compute processes running on them.
 */
public record GpuSnapshot(
    String driverVersion, List<GpuDevice> devices, List<GpuProcess> processes) {

  public GpuSnapshot {
    devices = List.copyOf(devices);
    processes = List.copyOf(processes);
  }

  /** Returns the sum of computeMilli over healthy devices (whole GPUs 1000, MIG their share). */
  public long healthyComputeMilli() {
    return devices.stream().filter(GpuDevice::healthy).mapToLong(GpuDevice::computeMilli).sum();
  }

  public long totalComputeMilli() {
    return devices.stream().mapToLong(GpuDevice::computeMilli).sum();
  }

  public long healthyMemoryMiB() {
    return devices.stream().filter(GpuDevice::healthy).mapToLong(GpuDevice::memoryMiB).sum();
  }

  public long totalMemoryMiB() {
    return devices.stream().mapToLong(GpuDevice::memoryMiB).sum();
  }
}
