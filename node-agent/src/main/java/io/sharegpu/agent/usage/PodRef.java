package io.sharegpu.agent.usage;

/** A container of a pod on this node: the labels of the per-container metric. */
public record PodRef(String namespace, String pod, String container) {}
