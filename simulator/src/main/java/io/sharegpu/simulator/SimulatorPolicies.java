package io.sharegpu.simulator;

import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.simulator.peers.PeerPolicies;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The policies the simulator can replay: the product's registry ({@link ReplayPolicies}: the
 * paper's baselines, {@code sharegpu}, {@code binpack}, {@code spread}) and the peers' ({@link
 * PeerPolicies}), which only the simulator knows.
 */
final class SimulatorPolicies {
  /** The six baselines of the FGD paper, in the paper's order. */
  static final List<String> BASELINES =
      List.of("random", "dotprod", "clustering", "packing", "bestfit", "fgd");

  private SimulatorPolicies() {}

  /** Every name, product's first. */
  static Set<String> names() {
    return ReplayPolicies.names();
  }

  /** The policies {@code compare} runs by default: baselines, peers, then ShareGPU's own. */
  static List<String> comparison() {
    List<String> out = new ArrayList<>(BASELINES);
    out.addAll(PeerPolicies.all().keySet());
    out.addAll(List.of("sharegpu", "binpack", "spread"));
    return out;
  }

  /** A fresh policy of this name. */
  static PlacementPolicy byName(String name, long seed) {
    return ReplayPolicies.create(normalize(name), seed);
  }

  /** The names of a comma list, checked; {@code all} stands for {@link #comparison()}. */
  static List<String> parse(String spec) {
    List<String> out = new ArrayList<>();
    for (String p : spec.split(",")) {
      String name = normalize(p);
      if (name.equals("all")) {
        out.addAll(comparison());
        continue;
      }
      out.add(ReplayPolicies.checked(p));
    }
    return out;
  }

  private static String normalize(String name) {
    return name.trim().toLowerCase(Locale.ROOT);
  }
}
