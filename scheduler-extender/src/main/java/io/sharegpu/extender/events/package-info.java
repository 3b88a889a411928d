/** ShareGPU scheduler extender: events. */
@NullMarked
package io.sharegpu.extender.events;

import org.jspecify.annotations.NullMarked;
