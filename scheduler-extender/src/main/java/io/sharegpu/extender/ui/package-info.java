/** ShareGPU scheduler extender: the read-only allocation page at {@code /ui} and its data. */
@NullMarked
package io.sharegpu.extender.ui;

import org.jspecify.annotations.NullMarked;
