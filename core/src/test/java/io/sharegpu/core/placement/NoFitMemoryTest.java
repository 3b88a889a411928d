package io.sharegpu.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What {@link NoFitMemory} answers across decisions equals a fresh evaluation: one long-lived
 * {@link Placement} and a new one per decision (nothing remembered) give the same filter (feasible
 * nodes and every rejection's words), the same scores and the same placement, on random ledgers
 * under random commits, releases, state changes and node replacements, for pods drawn from a few
 * shapes (so that shapes come back while some nodes changed and others did not).
 */
class NoFitMemoryTest {
  private static final int SEEDS = 80;
  private static final int STEPS = 60;

  @ParameterizedTest
  @ValueSource(strings = {"sharegpu", "binpack", "spread", "bestfit"})
  void rememberedAnswersEqualFreshEvaluation(String policy) {
    long hits = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      try {
        hits += run(policy, seed);
      } catch (AssertionError e) {
        throw new AssertionError(policy + " seed " + seed + ": " + e.getMessage(), e);
      }
    }
    // the memory answered often, so the comparisons above covered its answers
    assertThat(hits).isGreaterThan(SEEDS * STEPS / 2);
  }

  private static long run(String policy, long seed) {
    Random rnd = new Random(seed);
    Ledger ledger = new Ledger();
    List<GpuNode> templates = new ArrayList<>();
    for (int t = 0, count = 1 + rnd.nextInt(4); t < count; t++) {
      templates.add(PlacementDifferentialTest.randomNode(rnd, "t" + t));
    }
    List<GpuNode> nodes = new ArrayList<>();
    for (int n = 0, count = 2 + rnd.nextInt(14); n < count; n++) {
      GpuNode node =
          PlacementDifferentialTest.renamed(templates.get(rnd.nextInt(templates.size())), "n" + n);
      nodes.add(node);
      ledger.putNode(node);
    }
    List<PodDemand> shapes = new ArrayList<>();
    for (int s = 0, count = 1 + rnd.nextInt(5); s < count; s++) {
      shapes.add(PlacementDifferentialTest.randomPod(rnd, "shape" + s, nodes));
    }
    PlacementPolicy enginePolicy = PolicyRegistry.ALL.create(policy, seed);
    PlacementPolicy freshPolicy = PolicyRegistry.ALL.create(policy, seed);
    Placement engine = new Placement(ledger, enginePolicy);
    List<String> live = new ArrayList<>();
    for (int step = 0; step < STEPS; step++) {
      PodDemand shape = shapes.get(rnd.nextInt(shapes.size()));
      String id = "p" + step;
      PodDemand pod =
          new PodDemand(
              "ns/" + id,
              id,
              shape.containers(),
              shape.models(),
              shape.pinnedUuids(),
              shape.excludedUuids(),
              shape.cpuMilli(),
              shape.memoryMib());
      enginePolicy.observe(pod);
      freshPolicy.observe(pod);
      Placement fresh = new Placement(ledger, freshPolicy);
      String at = "step " + step + " pod " + pod;

      List<String> names = PlacementDifferentialTest.randomNames(rnd, nodes);
      FilterResult got = engine.filter(pod, names);
      FilterResult want = fresh.filter(pod, names);
      assertThat(got.feasible()).as("feasible, %s", at).isEqualTo(want.feasible());
      assertThat(got.rejected()).as("rejections, %s", at).isEqualTo(want.rejected());
      List<String> other = PlacementDifferentialTest.randomNames(rnd, nodes);
      assertThat(engine.prioritize(pod, other))
          .as("scores, %s", at)
          .isEqualTo(fresh.prioritize(pod, other));
      Optional<Allocation> placed = engine.place(pod);
      assertThat(placed).as("place, %s", at).isEqualTo(fresh.place(pod));
      if (rnd.nextInt(3) != 0) {
        PlacementDifferentialTest.mutate(rnd, ledger, nodes, live, pod, placed);
      }
    }
    return engine.noFitHits();
  }
}
