package io.sharegpu.core.placement;

import java.util.Map;
import java.util.function.LongFunction;

/**
 * Contributes policies to {@link PlacementPolicies}. Implementations are found with {@link
 * java.util.ServiceLoader} (list the class in {@code
 * META-INF/services/io.sharegpu.core.placement.PlacementPolicyProvider}) and need a public
 * no-argument constructor.
 */
public interface PlacementPolicyProvider {

  /** Returns policy names (lower case) and their factories; the argument is a random seed. */
  Map<String, LongFunction<PlacementPolicy>> policies();
}
