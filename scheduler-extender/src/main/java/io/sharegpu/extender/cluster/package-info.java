/** ShareGPU scheduler extender: cluster. */
@NullMarked
package io.sharegpu.extender.cluster;

import org.jspecify.annotations.NullMarked;
