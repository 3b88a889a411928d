package io.sharegpu.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Random nodes filled by the placement itself, random candidates (priorities, budgets, GPU time)
 * and random preemptors (shares, whole GPUs, several containers, models, pins, excludes, host CPU),
 * plus GPUs crowded with up to 12 small shares. Every plan is checked with the existing filter on a
 * copy of the ledger without the victims, and no victim could be spared; where a brute force over
 * every subset of the lower-priority candidates is affordable, it finds no cheaper set. The
 * classifier agrees with the filter on the emptied node (exactly for one container; for several, it
 * never calls unresolvable a node the emptied node would take).
 */
class VictimSelectorPropertyTest {
  private static final String NODE = "n1";
  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final String A100 = "NVIDIA A100-SXM4-40GB";
  private static final int SMALL_CASES = 4000;
  private static final int LARGE_CASES = 1000;
  private static final int CROWDED_CASES = 400;

  @Test
  void victimsAlwaysMakeThePodFitAndNoSubsetIsCheaper() {
    int[] seen = new int[4];
    for (long seed = 1; seed <= SMALL_CASES; seed++) {
      seen[check(seed, 8, true)]++;
    }
    assertCovered(seen, SMALL_CASES);
  }

  @Test
  void onLargerNodesVictimsFitAndNoneCouldBeSpared() {
    int[] seen = new int[4];
    for (long seed = 1; seed <= LARGE_CASES; seed++) {
      seen[check(1_000_000 + seed, 30, false)]++;
    }
    assertCovered(seen, LARGE_CASES);
  }

  @Test
  void onCrowdedGpusNoSubsetIsCheaper() {
    int[] seen = new int[4];
    for (long seed = 1; seed <= CROWDED_CASES; seed++) {
      long s = 2_000_000 + seed;
      try {
        seen[verify(crowdedCase(new Random(s)), true)]++;
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + s + ": " + e.getMessage(), e);
      }
    }
    assertThat(seen[SEVERAL_VICTIMS]).as("several victims").isGreaterThan(CROWDED_CASES / 4);
  }

  /** The cases are not all alike: each kind of answer comes up often enough to mean something. */
  private static void assertCovered(int[] seen, int cases) {
    assertThat(seen[IMPOSSIBLE]).as("impossible").isGreaterThan(cases / 20);
    assertThat(seen[NO_VICTIM]).as("fits already").isGreaterThan(0);
    assertThat(seen[ONE_VICTIM]).as("one victim").isGreaterThan(cases / 5);
    assertThat(seen[SEVERAL_VICTIMS]).as("several victims").isGreaterThan(cases / 20);
  }

  private static final int IMPOSSIBLE = 0;
  private static final int NO_VICTIM = 1;
  private static final int ONE_VICTIM = 2;
  private static final int SEVERAL_VICTIMS = 3;

  private static int check(long seed, int maxPods, boolean bruteForce) {
    try {
      Case c = randomCase(new Random(seed), maxPods);
      return verify(c, bruteForce);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
  }

  /** Checks one case; returns what kind of answer it got. */
  private static int verify(Case c, boolean bruteForce) {
    Placement placement = new Placement(c.ledger, c.policy);
    PreemptionPlan plan =
        new VictimSelector(c.ledger, placement).select(c.pod, c.priority, NODE, c.candidates);
    Shortfall shortfall = new ShortfallClassifier(c.ledger).classify(c.pod, NODE);
    boolean fitsIdle = fitsWithout(c, c.candidates);

    if (c.pod.containers().size() == 1) {
      assertThat(shortfall.preemptionCouldHelp())
          .as("classifier vs the filter on the emptied node: %s", shortfall.reason())
          .isEqualTo(fitsIdle);
    }
    if (!shortfall.preemptionCouldHelp()) {
      assertThat(fitsIdle).as("unresolvable, yet fits the emptied node").isFalse();
      assertThat(plan.possible()).as("unresolvable, yet %s", plan).isFalse();
    }

    List<PreemptionCandidate> lower = new ArrayList<>();
    for (PreemptionCandidate v : c.candidates) {
      if (v.priority() < c.priority) {
        lower.add(v);
      }
    }
    @Nullable VictimSetCost best = bruteForce ? cheapestByBruteForce(c, lower) : null;
    if (plan instanceof PreemptionPlan.Evict evict) {
      assertThat(evict.node()).isEqualTo(NODE);
      assertThat(lower).containsAll(evict.victims());
      assertThat(evict.cost()).isEqualTo(VictimSetCost.of(evict.victims()));
      assertThat(fitsWithout(c, evict.victims())).as("the victims make room").isTrue();
      Ledger after = without(c.ledger, evict.victims());
      after.commit(evict.preemptorAllocation()); // where it would go never over-commits
      if (bruteForce) {
        assertThat(evict.cost()).as("cheapest by brute force").isEqualTo(best);
      }
      for (PreemptionCandidate spared : evict.victims()) {
        List<PreemptionCandidate> fewer = new ArrayList<>(evict.victims());
        fewer.remove(spared);
        assertThat(fitsWithout(c, fewer)).as("%s could be spared", spared.podKey()).isFalse();
      }
      int victims = evict.victims().size();
      return victims == 0 ? NO_VICTIM : victims == 1 ? ONE_VICTIM : SEVERAL_VICTIMS;
    } else {
      assertThat(plan.possible()).isFalse();
      assertThat(((PreemptionPlan.Impossible) plan).reason()).isNotBlank();
      if (bruteForce) {
        assertThat(best).as("brute force found a set").isNull();
      }
      if (c.pod.containers().size() == 1) {
        assertThat(fitsWithout(c, lower)).as("evicting every lower pod fits").isFalse();
      }
      return IMPOSSIBLE;
    }
  }

  /**
   * The cheapest subset of {@code lower} that makes the pod fit, or null when none does: every
   * subset, ordered by cost, tried with the filter until one fits.
   */
  private static @Nullable VictimSetCost cheapestByBruteForce(
      Case c, List<PreemptionCandidate> lower) {
    int sets = 1 << lower.size();
    List<List<PreemptionCandidate>> all = new ArrayList<>(sets);
    for (int mask = 0; mask < sets; mask++) {
      List<PreemptionCandidate> set = new ArrayList<>();
      for (int b = 0; b < lower.size(); b++) {
        if ((mask & (1 << b)) != 0) {
          set.add(lower.get(b));
        }
      }
      all.add(set);
    }
    all.sort(Comparator.comparing(VictimSetCost::of));
    for (List<PreemptionCandidate> set : all) {
      if (fitsWithout(c, set)) {
        return VictimSetCost.of(set);
      }
    }
    return null;
  }

  /** Whether the existing filter passes the node once these pods are released. */
  private static boolean fitsWithout(Case c, List<PreemptionCandidate> victims) {
    Ledger l = without(c.ledger, victims);
    return new Placement(l, c.policy).filter(c.pod, List.of(NODE)).feasible().contains(NODE);
  }

  private static Ledger without(Ledger ledger, List<PreemptionCandidate> victims) {
    Ledger l = ledger.copy();
    for (PreemptionCandidate v : victims) {
      assertThat(l.release(v.podUid())).isPresent();
    }
    return l;
  }

  // ---------------------------------------------------------------- random cases

  private record Case(
      Ledger ledger,
      PlacementPolicy policy,
      List<PreemptionCandidate> candidates,
      PodDemand pod,
      int priority) {}

  private static Case randomCase(Random rnd, int maxPods) {
    List<Gpu> gpus = new ArrayList<>();
    int count = maxPods > 8 ? 4 + rnd.nextInt(5) : 1 + rnd.nextInt(4);
    for (int i = 0; i < count; i++) {
      boolean a100 = rnd.nextInt(4) == 0;
      String uuid = "GPU-" + i;
      if (a100 && rnd.nextInt(3) == 0) {
        // a MIG-enabled A100: the parent takes nothing, its instances take shares
        gpus.add(new Gpu(uuid, gpus.size(), A100, 40960, 1000, true, null, null));
        gpus.add(new Gpu("MIG-" + i + "a", gpus.size(), A100, 20096, 428, true, uuid, "3g.20gb"));
        gpus.add(new Gpu("MIG-" + i + "b", gpus.size(), A100, 9856, 285, true, uuid, "2g.10gb"));
        continue;
      }
      Gpu g = Gpu.whole(uuid, gpus.size(), a100 ? A100 : H100, a100 ? 40960 : 81559);
      gpus.add(rnd.nextInt(15) == 0 ? g.withHealthy(false) : g);
    }
    boolean host = rnd.nextInt(4) == 0;
    Ledger ledger = new Ledger();
    ledger.putNode(new GpuNode(NODE, gpus, host ? 16_000 : 0, 0));
    PlacementPolicy policy = PolicyRegistry.ALL.create(rnd.nextBoolean() ? "binpack" : "spread", 1);
    Placement placement = new Placement(ledger, policy);
    List<PreemptionCandidate> candidates = new ArrayList<>();
    int pods = maxPods / 2 + rnd.nextInt(maxPods / 2 + 1);
    for (int attempt = 0; attempt < pods * 5 && candidates.size() < pods; attempt++) {
      PodDemand p = randomPod(rnd, "v" + attempt, gpus, host, false);
      Allocation a = placement.place(p).orElse(null);
      if (a == null) {
        continue;
      }
      ledger.commit(a, p.cpuMilli(), 0);
      long lost = rnd.nextInt(3) == 0 ? 0 : 1000L * rnd.nextInt(5);
      candidates.add(new PreemptionCandidate(a, rnd.nextInt(4), rnd.nextInt(5) == 0, lost));
    }
    Collections.shuffle(candidates, rnd);
    PodDemand pod = randomPod(rnd, "preemptor", gpus, host, true);
    return new Case(ledger, policy, candidates, pod, 1 + rnd.nextInt(4));
  }

  /**
   * One or two H100s crowded with up to 12 small shares of many sizes, priorities with ties, some
   * budgets, GPU times with ties; a share to make room for.
   */
  private static Case crowdedCase(Random rnd) {
    List<Gpu> gpus = new ArrayList<>();
    int count = 1 + rnd.nextInt(2);
    for (int i = 0; i < count; i++) {
      gpus.add(Gpu.whole("GPU-" + i, i, H100, 81559));
    }
    Ledger ledger = new Ledger();
    ledger.putNode(GpuNode.of(NODE, gpus));
    PlacementPolicy policy = PolicyRegistry.ALL.create("binpack", 1);
    List<PreemptionCandidate> candidates = new ArrayList<>();
    int pods = 6 + rnd.nextInt(7);
    for (int i = 0; i < pods; i++) {
      Gpu gpu = gpus.get(rnd.nextInt(count));
      int milli = 30 + 10 * rnd.nextInt(15);
      long mib = 500L * (1 + rnd.nextInt(12));
      Allocation a =
          new Allocation(
              "ns/c" + i,
              "c" + i,
              NODE,
              List.of(
                  new ContainerGrant("main", List.of(new GpuGrant(gpu.uuid(), milli, mib)), milli)),
              AllocationState.BOUND);
      try {
        ledger.commit(a);
      } catch (RuntimeException full) {
        continue;
      }
      candidates.add(
          new PreemptionCandidate(
              a, rnd.nextInt(4) - 1, rnd.nextInt(6) == 0, 1000L * rnd.nextInt(3)));
    }
    int freeMilli = 1000;
    for (PreemptionCandidate c : candidates) {
      freeMilli -= c.allocation().containers().get(0).gpus().get(0).computeMilli();
    }
    int milli = Math.min(999, Math.max(50, 1000 - Math.max(0, freeMilli) + 50 * rnd.nextInt(8)));
    long mib = rnd.nextBoolean() ? 0 : 1000L * (1 + rnd.nextInt(78));
    PodDemand pod = PodDemand.share("ns/preemptor", "preemptor", milli, mib);
    return new Case(ledger, policy, candidates, pod, 2 + rnd.nextInt(2));
  }

  private static PodDemand randomPod(
      Random rnd, String name, List<Gpu> gpus, boolean host, boolean constrained) {
    List<GpuDemand> containers = new ArrayList<>();
    int kinds = rnd.nextInt(10) == 0 ? 2 : 1;
    for (int i = 0; i < kinds; i++) {
      String container = "c" + i;
      if (rnd.nextInt(4) == 0) {
        containers.add(GpuDemand.whole(container, 1 + rnd.nextInt(constrained ? 3 : 2), 0));
      } else {
        int milli = 50 * (1 + rnd.nextInt(19));
        long mib = rnd.nextBoolean() ? 0 : 1000L * (1 + rnd.nextInt(constrained ? 70 : 35));
        containers.add(GpuDemand.share(container, milli, mib));
      }
    }
    PodDemand pod =
        new PodDemand("ns/" + name, name, containers, Set.of(), Set.of(), Set.of(), 0, 0);
    if (host && rnd.nextInt(3) == 0) {
      pod = pod.withHost(1000L * (1 + rnd.nextInt(constrained ? 12 : 6)), 0);
    }
    if (constrained) {
      int r = rnd.nextInt(20);
      if (r < 3) {
        pod = pod.withModels(Set.of(r == 0 ? "a100" : "h100"));
      } else if (r < 5) {
        pod = pod.withPinned(Set.of(gpus.get(rnd.nextInt(gpus.size())).uuid()));
      } else if (r < 6) {
        pod = pod.withExcluded(Set.of(gpus.get(rnd.nextInt(gpus.size())).uuid()));
      }
    }
    return pod;
  }
}
