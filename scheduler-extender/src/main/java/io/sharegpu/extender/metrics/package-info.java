/** ShareGPU scheduler extender: metrics. */
@NullMarked
package io.sharegpu.extender.metrics;

import org.jspecify.annotations.NullMarked;
