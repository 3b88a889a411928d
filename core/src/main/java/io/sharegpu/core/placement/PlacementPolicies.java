package io.sharegpu.core.placement;

import io.sharegpu.core.policy.PolicyRegistry;
import java.util.Set;

/**
 * The policies of {@link PolicyRegistry#ALL} by name, for callers written before the registry.
 *
 * @deprecated use {@link PolicyRegistry}: {@link PolicyRegistry#PRODUCT} for what the extender
 *     offers, {@link PolicyRegistry#ALL} with the paper baselines.
 */
@Deprecated
public final class PlacementPolicies {
  private PlacementPolicies() {}

  /**
   * Returns a fresh policy of {@link PolicyRegistry#ALL}.
   *
   * @throws IllegalArgumentException for an unknown name; the message lists the valid ones
   */
  public static PlacementPolicy byName(String name, long seed) {
    return PolicyRegistry.ALL.create(name, seed);
  }

  /** Returns the names of {@link PolicyRegistry#ALL}. */
  public static Set<String> names() {
    return PolicyRegistry.ALL.names();
  }
}
