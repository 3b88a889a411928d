/** ShareGPU scheduler extender: pods waiting for GPUs, retried when room appears. */
@NullMarked
package io.sharegpu.extender.requeue;

import org.jspecify.annotations.NullMarked;
