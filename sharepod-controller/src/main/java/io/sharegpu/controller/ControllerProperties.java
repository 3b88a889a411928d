package io.sharegpu.controller;

import io.sharegpu.api.ShareGpuAnnotations;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code sharegpu.controller}.
 *
 * @param schedulerName {@code schedulerName} of the pods: the kube-scheduler profile that calls the
 *     ShareGPU extender
 * @param namespaces namespaces to watch for SharePods; empty means all
 * @param mpsPipeDirectory host path of the MPS pipe directory, mounted at the same path
 * @param workers reconciling threads
 * @param resyncPeriod how often every SharePod is reconciled even without a change
 * @param leaderElection which replica reconciles when several run
 */
@ConfigurationProperties("sharegpu.controller")
public record ControllerProperties(
    @DefaultValue(ShareGpuAnnotations.SCHEDULER_NAME) String schedulerName,
    @DefaultValue List<String> namespaces,
    @DefaultValue(ShareGpuAnnotations.MPS_PIPE_DIRECTORY) String mpsPipeDirectory,
    @DefaultValue("2") int workers,
    @DefaultValue("10m") Duration resyncPeriod,
    @DefaultValue LeaderElection leaderElection) {

  public ControllerProperties {
    namespaces =
        namespaces.stream().map(String::trim).filter(s -> !s.isEmpty()).distinct().toList();
  }

  /**
   * Settings under {@code sharegpu.controller.leader-election}: replicas elect, through a Lease,
   * the one that reconciles; the others keep their caches warm and take over when its Lease
   * expires.
   *
   * @param enabled elect a leader; off only where exactly one replica can ever run
   * @param leaseName name of the Lease
   * @param namespace namespace of the Lease; empty means the client's namespace (in a pod: the
   *     service account's, i.e. the release namespace), else {@code default}
   * @param identity this replica's holder identity in the Lease; empty means {@code
   *     <HOSTNAME>_<random>}, unique per process
   * @param leaseDuration how long a Lease that is not renewed blocks the other replicas: the
   *     longest a failover takes after a crash
   * @param renewDeadline how long the leader keeps trying to renew before it gives up; it stops
   *     writing after this long without a renewal, before anyone else may take the Lease
   * @param retryPeriod how often the Lease is renewed and followers try to take it
   */
  public record LeaderElection(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("sharegpu-controller") String leaseName,
      @DefaultValue("") String namespace,
      @DefaultValue("") String identity,
      @DefaultValue("15s") Duration leaseDuration,
      @DefaultValue("10s") Duration renewDeadline,
      @DefaultValue("2s") Duration retryPeriod) {}
}
