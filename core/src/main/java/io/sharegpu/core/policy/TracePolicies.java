package io.sharegpu.core.policy;

import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.placement.PlacementPolicyProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Contributes the policies of this package to {@link PlacementPolicies}: {@code random}, {@code
 * dotprod}, {@code clustering}, {@code packing}, {@code bestfit}, {@code fgd} and {@code sharegpu}.
 * Found through {@link java.util.ServiceLoader}; {@link #registerAll()} registers them explicitly.
 */
public final class TracePolicies implements PlacementPolicyProvider {

  /** Used by {@link java.util.ServiceLoader}. */
  public TracePolicies() {}

  @Override
  public Map<String, LongFunction<PlacementPolicy>> policies() {
    Map<String, LongFunction<PlacementPolicy>> m = new LinkedHashMap<>();
    m.put(RandomPolicy.NAME, RandomPolicy::new);
    m.put(DotProdPolicy.NAME, DotProdPolicy::new);
    m.put(ClusteringPolicy.NAME, ClusteringPolicy::new);
    m.put(PackingPolicy.NAME, PackingPolicy::new);
    m.put(BestFitPolicy.NAME, BestFitPolicy::new);
    m.put(FgdPolicy.NAME, FgdPolicy::new);
    m.put("fgd-exact", seed -> new FgdPolicy(seed, false));
    m.put(ShareGpuPolicy.NAME, seed -> new ShareGpuPolicy());
    return m;
  }

  /** Registers every policy of this package with {@link PlacementPolicies#register}. */
  public static void registerAll() {
    for (Map.Entry<String, LongFunction<PlacementPolicy>> e :
        new TracePolicies().policies().entrySet()) {
      PlacementPolicies.register(e.getKey(), e.getValue());
    }
  }
}
