/**
 * ShareGPU scheduler extender: Kubernetes objects ⇄ core values ({@link
 * io.sharegpu.extender.mapping.PodDemands}, {@link io.sharegpu.extender.mapping.DemandMapper},
 * {@link io.sharegpu.extender.mapping.GpuNodeMapper}). Pure: no client, no lock, no clock.
 */
@NullMarked
package io.sharegpu.extender.mapping;

import org.jspecify.annotations.NullMarked;
