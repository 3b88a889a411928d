/**
 * ShareGPU scheduler extender: the preempt verb (which pods to evict so a pod fits on real GPUs).
 */
@NullMarked
package io.sharegpu.extender.preempt;

import org.jspecify.annotations.NullMarked;
