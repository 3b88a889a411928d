/** ShareGPU scheduler extender: bind. */
@NullMarked
package io.sharegpu.extender.bind;

import org.jspecify.annotations.NullMarked;
