package io.sharegpu.core.policy;

import io.sharegpu.core.placement.BinPackPolicy;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.placement.SpreadPolicy;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * The placement policies by name: every policy is listed here, once. {@link #PRODUCT} are the
 * policies the extender offers ({@code sharegpu}, {@code binpack}, {@code spread}); {@link
 * #BASELINES} are the policies of the papers the simulator compares against; {@link #ALL} is both.
 * A registry is immutable: {@link #with} makes a larger one (the simulator adds its own policies
 * that way), and {@link #create} refuses an unknown name with the list of valid ones, so that a
 * misspelt setting stops start-up instead of choosing another policy.
 *
 * <p>Names are matched case-insensitively and without surrounding blanks; the factory takes a
 * random seed (used by policies that draw random numbers).
 */
public final class PolicyRegistry {

  /** The policies ShareGPU ships: the extender's {@code sharegpu.extender.policy}. */
  public static final PolicyRegistry PRODUCT =
      of(
          entry(ShareGpuPolicy.NAME, seed -> new ShareGpuPolicy()),
          entry(BinPackPolicy.NAME, seed -> new BinPackPolicy()),
          entry(SpreadPolicy.NAME, seed -> new SpreadPolicy()));

  /** The baselines of the papers ShareGPU is measured against (simulator only). */
  public static final PolicyRegistry BASELINES =
      of(
          entry(RandomPolicy.NAME, RandomPolicy::new),
          entry(DotProdPolicy.NAME, DotProdPolicy::new),
          entry(ClusteringPolicy.NAME, ClusteringPolicy::new),
          entry(PackingPolicy.NAME, PackingPolicy::new),
          entry(BestFitPolicy.NAME, BestFitPolicy::new),
          entry(FgdPolicy.NAME, FgdPolicy::new),
          entry("fgd-exact", seed -> new FgdPolicy(seed, false)));

  /** The product's policies and the baselines. */
  public static final PolicyRegistry ALL = PRODUCT.with(BASELINES);

  private final Map<String, LongFunction<PlacementPolicy>> factories;

  private PolicyRegistry(Map<String, LongFunction<PlacementPolicy>> factories) {
    this.factories = Collections.unmodifiableMap(new LinkedHashMap<>(factories));
  }

  /**
   * Returns a registry with these policies and {@code more}'s.
   *
   * @throws IllegalArgumentException when a name is in both
   */
  public PolicyRegistry with(PolicyRegistry more) {
    Map<String, LongFunction<PlacementPolicy>> m = new LinkedHashMap<>(factories);
    for (Map.Entry<String, LongFunction<PlacementPolicy>> e : more.factories.entrySet()) {
      if (m.putIfAbsent(e.getKey(), e.getValue()) != null) {
        throw new IllegalArgumentException("placement policy '" + e.getKey() + "' listed twice");
      }
    }
    return new PolicyRegistry(m);
  }

  /**
   * Returns a registry with these policies and one more.
   *
   * @throws IllegalArgumentException when the name is blank or already listed
   */
  public PolicyRegistry with(String name, LongFunction<PlacementPolicy> factory) {
    String key = normalize(name);
    if (key.isEmpty()) {
      throw new IllegalArgumentException("policy name must not be blank");
    }
    return with(new PolicyRegistry(Map.of(key, factory)));
  }

  /** Returns the names, in the order listed. */
  public Set<String> names() {
    return factories.keySet();
  }

  /** Returns true when {@code name} (any case) is listed. */
  public boolean contains(String name) {
    return factories.containsKey(normalize(name));
  }

  /**
   * Returns a fresh policy.
   *
   * @param name the policy's name (case-insensitive)
   * @param seed the seed for policies that draw random numbers
   * @throws IllegalArgumentException for a name not listed; the message lists the valid ones
   */
  public PlacementPolicy create(String name, long seed) {
    LongFunction<PlacementPolicy> factory = factories.get(normalize(name));
    if (factory == null) {
      throw new IllegalArgumentException(unknown(name));
    }
    return factory.apply(seed);
  }

  /** {@code unknown placement policy 'binpak'; valid: sharegpu, binpack, spread}. */
  public String unknown(String name) {
    return "unknown placement policy '" + name + "'; valid: " + String.join(", ", names());
  }

  private static String normalize(String name) {
    return name.trim().toLowerCase(Locale.ROOT);
  }

  private static PolicyRegistry of(Entry... entries) {
    Map<String, LongFunction<PlacementPolicy>> m = new LinkedHashMap<>();
    for (Entry e : entries) {
      m.put(e.name(), e.factory());
    }
    return new PolicyRegistry(m);
  }

  private static Entry entry(String name, LongFunction<PlacementPolicy> factory) {
    return new Entry(name, factory);
  }

  private record Entry(String name, LongFunction<PlacementPolicy> factory) {}
}
