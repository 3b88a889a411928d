package io.sharegpu.core.placement;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * The registry of placement policies by name. Built in: {@code binpack} and {@code spread}. More
 * come from {@link #register} or from {@link PlacementPolicyProvider}s on the class path.
 */
public final class PlacementPolicies {
  private static final Map<String, LongFunction<PlacementPolicy>> REGISTRY = new TreeMap<>();
  private static boolean providersLoaded;

  static {
    REGISTRY.put(BinPackPolicy.NAME, seed -> new BinPackPolicy());
    REGISTRY.put(SpreadPolicy.NAME, seed -> new SpreadPolicy());
  }

  private PlacementPolicies() {}

  /**
   * Registers (or replaces) a policy.
   *
   * @param name the name, matched case-insensitively
   * @param factory makes a fresh policy from a random seed
   */
  public static synchronized void register(String name, LongFunction<PlacementPolicy> factory) {
    String key = normalize(name);
    if (key.isEmpty()) {
      throw new IllegalArgumentException("policy name must not be blank");
    }
    REGISTRY.put(key, factory);
  }

  /**
   * Returns a fresh policy.
   *
   * @param name the policy's name (case-insensitive)
   * @param seed the seed for policies that draw random numbers
   * @throws IllegalArgumentException for an unknown name; the message lists the known ones
   */
  public static synchronized PlacementPolicy byName(String name, long seed) {
    loadProviders();
    LongFunction<PlacementPolicy> factory = REGISTRY.get(normalize(name));
    if (factory == null) {
      throw new IllegalArgumentException(
          "unknown placement policy '"
              + name
              + "'; known: "
              + String.join(", ", REGISTRY.keySet()));
    }
    return factory.apply(seed);
  }

  /** Returns the known policy names, sorted. */
  public static synchronized Set<String> names() {
    loadProviders();
    return Collections.unmodifiableSortedSet(new TreeSet<>(REGISTRY.keySet()));
  }

  private static void loadProviders() {
    if (providersLoaded) {
      return;
    }
    providersLoaded = true;
    for (PlacementPolicyProvider p :
        ServiceLoader.load(
            PlacementPolicyProvider.class, PlacementPolicies.class.getClassLoader())) {
      for (Map.Entry<String, LongFunction<PlacementPolicy>> e : p.policies().entrySet()) {
        REGISTRY.putIfAbsent(normalize(e.getKey()), e.getValue());
      }
    }
  }

  private static String normalize(String name) {
    return name.trim().toLowerCase(Locale.ROOT);
  }
}
