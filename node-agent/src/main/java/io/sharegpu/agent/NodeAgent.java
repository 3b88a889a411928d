package io.sharegpu.agent;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.agent.gpu.GpuDevice;
import io.sharegpu.agent.gpu.GpuDiscoveryException;
import io.sharegpu.agent.gpu.GpuInventory;
import io.sharegpu.agent.gpu.GpuSnapshot;
import io.sharegpu.agent.kube.GpuNodePublisher;
import io.sharegpu.agent.kube.GpuNodeStatusMapper;
import io.sharegpu.agent.usage.UsageMetrics;
import io.sharegpu.api.gpunode.GPUNodeStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One report cycle: read the GPUs, publish the GPUNode status (the heartbeat) and the Node's
 * capacity, refresh the metrics. Logs GPUs appearing, disappearing, being repartitioned or turning
 * unhealthy.
 */
public final class NodeAgent {

  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final GpuInventory inventory;
  private final GpuNodePublisher publisher;
  private final UsageMetrics metrics;
  private final Path mpsPipeDirectory;
  private final Clock clock;
  private volatile @Nullable GpuSnapshot last;
  private volatile @Nullable Instant lastSuccess;

  public NodeAgent(
      GpuInventory inventory,
      GpuNodePublisher publisher,
      UsageMetrics metrics,
      Path mpsPipeDirectory,
      Clock clock) {
    this.inventory = inventory;
    this.publisher = publisher;
    this.metrics = metrics;
    this.mpsPipeDirectory = mpsPipeDirectory;
    this.clock = clock;
  }

  /**
   * Returns "mps" when an MPS control daemon's pipe ({@code <dir>/control}) exists, else "none".
   */
  public static String enforcement(Path mpsPipeDirectory) {
    return Files.exists(mpsPipeDirectory.resolve("control"))
        ? GPUNodeStatus.ENFORCEMENT_MPS
        : GPUNodeStatus.ENFORCEMENT_NONE;
  }

  /** Runs one cycle; failures are logged and retried at the next heartbeat. */
  public synchronized void runOnce() {
    try {
      cycle();
    } catch (RuntimeException e) {
      // Keep the scheduled loop alive: an exception would cancel every later heartbeat.
      log.error("report cycle failed", e);
    }
  }

  private void cycle() {
    GpuSnapshot snapshot;
    try {
      snapshot = inventory.snapshot();
    } catch (GpuDiscoveryException e) {
      log.error("cannot read GPUs from {}: {}", inventory.source(), e.getMessage());
      return;
    }
    logChanges(last, snapshot);
    last = snapshot;
    metrics.update(snapshot);
    try {
      publisher.publishStatus(
          GpuNodeStatusMapper.toStatus(snapshot, enforcement(mpsPipeDirectory), clock.instant()));
      publisher.publishCapacity(
          GpuNodeStatusMapper.capacity(snapshot), GpuNodeStatusMapper.allocatable(snapshot));
      lastSuccess = clock.instant();
    } catch (KubernetesClientException | IllegalStateException e) {
      log.warn("cannot publish GPUs: {}", e.getMessage());
    }
  }

  /**
   * Returns false when the Node no longer advertises the capacity and allocatable this agent
   * publishes: a kubelet that zeroes extended resources when it registers without a device-manager
   * checkpoint, an edit by hand. True before the first cycle (nothing to compare with).
   */
  public boolean advertisesCapacity(Node node) {
    @Nullable GpuSnapshot snapshot = last;
    return snapshot == null
        || GpuNodePublisher.matches(
            node,
            GpuNodeStatusMapper.capacity(snapshot),
            GpuNodeStatusMapper.allocatable(snapshot));
  }

  /** Returns when a cycle last published successfully, or null before the first. */
  public @Nullable Instant lastSuccess() {
    return lastSuccess;
  }

  static void logChanges(@Nullable GpuSnapshot before, GpuSnapshot now) {
    if (before == null) {
      log.info("found {} GPU device(s): {}", now.devices().size(), describe(now.devices()));
      return;
    }
    if (!before.devices().stream()
        .map(NodeAgent::shape)
        .collect(Collectors.toList())
        .equals(now.devices().stream().map(NodeAgent::shape).collect(Collectors.toList()))) {
      log.info("GPUs changed from {} to {}", describe(before.devices()), describe(now.devices()));
    }
  }

  private static String shape(GpuDevice d) {
    return d.uuid() + "/" + d.migProfile() + "/" + d.memoryMiB() + "/" + d.healthy();
  }

  private static String describe(List<GpuDevice> devices) {
    return devices.stream()
        .map(
            d ->
                d.index()
                    + ":"
                    + d.uuid()
                    + (d.migProfile() == null ? "" : "(" + d.migProfile() + ")")
                    + (d.healthy() ? "" : "[unhealthy]"))
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
