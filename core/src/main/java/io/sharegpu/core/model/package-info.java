/** The GPUs of a node as the scheduler sees them: plain values, valid by construction. */
@NullMarked
package io.sharegpu.core.model;

import org.jspecify.annotations.NullMarked;
