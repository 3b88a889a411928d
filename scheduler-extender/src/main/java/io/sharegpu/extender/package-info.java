/** The ShareGPU scheduler extender application and its configuration. */
@NullMarked
package io.sharegpu.extender;

import org.jspecify.annotations.NullMarked;
