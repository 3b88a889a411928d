package io.sharegpu.simulator.peers;

import io.sharegpu.core.placement.PlacementPolicy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The peers' policies by name, in one place: {@code gpushare}, {@code hami} (node binpack, GPU
 * spread), {@code hami-binpack} (node binpack, GPU binpack) and {@code kubeshare}. The simulator
 * looks names up here before the product's registry; the product never sees these.
 */
public final class PeerPolicies {
  private PeerPolicies() {}

  /** Name → a fresh policy from a random seed, in the order the tables list them. */
  public static Map<String, LongFunction<PlacementPolicy>> all() {
    Map<String, LongFunction<PlacementPolicy>> m = new LinkedHashMap<>();
    m.put(GpusharePolicy.NAME, GpusharePolicy::new);
    m.put(HamiPolicy.NAME, seed -> new HamiPolicy(false, seed));
    m.put(HamiPolicy.BINPACK_NAME, seed -> new HamiPolicy(true, seed));
    m.put(KubeSharePolicy.NAME, KubeSharePolicy::new);
    return m;
  }
}
