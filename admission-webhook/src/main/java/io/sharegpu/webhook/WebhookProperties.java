package io.sharegpu.webhook;

import io.sharegpu.api.ShareGpuAnnotations;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code sharegpu.webhook}.
 *
 * @param schedulerName the kube-scheduler profile that calls the ShareGPU extender; GPU pods left
 *     at {@code default-scheduler} are moved to it, GPU pods naming another scheduler are denied
 * @param mountMpsPipe whether GPU containers get the MPS pipe hostPath volume and mount
 * @param translate peers whose request spellings are translated in every namespace ({@code hami},
 *     {@code kubeshare}, {@code kubeshare2}, {@code gpu-manager}, {@code gpushare} or {@code all});
 *     empty: only namespaces that opt in through their label (the chart routes them to {@code
 *     /mutate-pods/translate/<peer>})
 * @param partitionSchedulerNames the scheduler names of further ShareGPU releases, each a
 *     kube-scheduler with its own extender over a pool of nodes (docs/scaling.md); GPU pods naming
 *     one of them are admitted like pods naming {@code schedulerName}
 */
@ConfigurationProperties("sharegpu.webhook")
public record WebhookProperties(
    @DefaultValue(ShareGpuAnnotations.SCHEDULER_NAME) String schedulerName,
    @DefaultValue("true") boolean mountMpsPipe,
    @DefaultValue List<String> translate,
    @DefaultValue List<String> partitionSchedulerNames) {}
