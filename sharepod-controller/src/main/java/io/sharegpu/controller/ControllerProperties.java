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
 */
@ConfigurationProperties("sharegpu.controller")
public record ControllerProperties(
    @DefaultValue(ShareGpuAnnotations.SCHEDULER_NAME) String schedulerName,
    @DefaultValue List<String> namespaces,
    @DefaultValue(ShareGpuAnnotations.MPS_PIPE_DIRECTORY) String mpsPipeDirectory,
    @DefaultValue("2") int workers,
    @DefaultValue("10m") Duration resyncPeriod) {

  public ControllerProperties {
    namespaces =
        namespaces.stream().map(String::trim).filter(s -> !s.isEmpty()).distinct().toList();
  }
}
