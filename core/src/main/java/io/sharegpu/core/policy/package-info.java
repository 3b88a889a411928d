/**
 * Placement policies evaluated on the Alibaba GPU trace: the baselines of the FGD paper (Weng et
 * al., USENIX ATC 2023) re-implemented from their descriptions, and {@code sharegpu}, the default,
 * an online fragmentation-aware policy. {@link io.sharegpu.core.policy.PolicyRegistry} lists every
 * policy by name, the product's apart from the baselines.
 */
@NullMarked
package io.sharegpu.core.policy;

import org.jspecify.annotations.NullMarked;
