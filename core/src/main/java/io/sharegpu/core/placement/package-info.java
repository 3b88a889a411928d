/** Where a pod fits and where it goes: fit rules, placement policies, scores and explanations. */
@NullMarked
package io.sharegpu.core.placement;

import org.jspecify.annotations.NullMarked;
