package io.sharegpu.simulator;

import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.simulator.peers.PeerPolicies;
import java.util.Set;

/**
 * The policies the simulator replays: the product's and the paper baselines ({@link
 * PolicyRegistry#ALL}); policies of the simulator's own join here with {@link PolicyRegistry#with}.
 * Commands check {@code --policy} before any work, so a misspelt name stops with the valid ones.
 */
final class ReplayPolicies {
  static final PolicyRegistry REGISTRY = withPeers();

  private static PolicyRegistry withPeers() {
    PolicyRegistry registry = PolicyRegistry.ALL;
    for (var peer : PeerPolicies.all().entrySet()) {
      registry = registry.with(peer.getKey(), peer.getValue());
    }
    return registry;
  }

  private ReplayPolicies() {}

  /** Returns the names, in the order listed. */
  static Set<String> names() {
    return REGISTRY.names();
  }

  /**
   * Returns {@code name} in lower case, the way the registry lists it.
   *
   * @throws Main.UsageException when it names no policy; the message lists the valid ones
   */
  static String checked(String name) {
    if (!REGISTRY.contains(name)) {
      throw new Main.UsageException(REGISTRY.unknown(name.trim()));
    }
    return name.trim().toLowerCase(java.util.Locale.ROOT);
  }

  /** Returns a fresh policy; the name was {@linkplain #checked checked}. */
  static PlacementPolicy create(String name, long seed) {
    return REGISTRY.create(name, seed);
  }
}
