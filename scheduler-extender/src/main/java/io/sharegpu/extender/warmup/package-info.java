/** The verbs' warm-up before the extender reports ready: the JIT compiles their path first. */
@NullMarked
package io.sharegpu.extender.warmup;

import org.jspecify.annotations.NullMarked;
