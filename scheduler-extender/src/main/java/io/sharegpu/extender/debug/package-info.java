/** ShareGPU scheduler extender: debug. */
@NullMarked
package io.sharegpu.extender.debug;

import org.jspecify.annotations.NullMarked;
