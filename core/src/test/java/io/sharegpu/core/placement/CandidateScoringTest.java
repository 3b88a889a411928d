package io.sharegpu.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.ledger.OverCommitException;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PlacementPolicy#scoreCandidate} gives exactly what {@link PlacementPolicy#score} gives on
 * the candidate's grant objects, for every registered policy, on random nodes (GPU models, MIG,
 * cordons, host CPU and memory), random usage and random pods, with candidates whole and partial
 * (some containers not granted yet, as the engine scores them while it places a pod's containers
 * one by one), shares of one pod on the same GPU, and whole GPUs.
 *
 * <p>Equality is exact ({@code Double.equals}, so bit for bit): a policy that scores from the
 * arrays performs the same operations in the same order on the same integer counts as its {@code
 * score} on the grants, and the engine breaks ties within rounding ({@link NodeEvaluator#better})
 * only between candidates, never between the two ways of scoring one. A difference in the last bit
 * would mean the arithmetic differs, which may change a decision on a tie.
 */
class CandidateScoringTest {
  private static final int SEEDS = 80;
  private static final int STEPS = 30;

  static Stream<String> policies() {
    return PolicyRegistry.ALL.names().stream();
  }

  @ParameterizedTest
  @MethodSource("policies")
  void scoreCandidateEqualsScoreOnTheGrants(String name) {
    Seen seen = new Seen();
    for (long seed = 1; seed <= SEEDS; seed++) {
      run(name, seed, seen);
    }
    // the random inputs reach every form of candidate, so the test cannot pass on empty ground
    assertThat(seen.compared).isGreaterThan(SEEDS * STEPS);
    assertThat(seen.partial).isGreaterThan(200);
    assertThat(seen.multiContainer).isGreaterThan(200);
    assertThat(seen.wholeGpus).isGreaterThan(200);
    assertThat(seen.sameGpuTwice).isGreaterThan(20);
    assertThat(seen.hostTracked).isGreaterThan(200);
    assertThat(seen.packed).isGreaterThan(SEEDS * STEPS / 2);
  }

  private static final class Seen {
    int compared;
    int partial;
    int multiContainer;
    int wholeGpus;
    int sameGpuTwice;
    int hostTracked;
    int packed;
  }

  /** Whether every container of the pod is granted in full, as in an engine's outcome. */
  private static boolean complete(CandidateGrant candidate, PodDemand pod) {
    for (int c = 0; c < candidate.containers(); c++) {
      GpuDemand d = pod.containers().get(c);
      if (candidate.granted(c) != (d.isShare() ? 1 : d.wholeGpus())) {
        return false;
      }
    }
    return true;
  }

  private static void run(String name, long seed, Seen seen) {
    Random rnd = new Random(seed);
    Ledger ledger = new Ledger();
    List<GpuNode> nodes = new ArrayList<>();
    for (int n = 0, count = 1 + rnd.nextInt(6); n < count; n++) {
      GpuNode node = PlacementDifferentialTest.randomNode(rnd, "n" + n);
      nodes.add(node);
      ledger.putNode(node);
    }
    // two instances in lockstep: each keeps its own caches, and a random policy draws alike
    PlacementPolicy viaArrays = PolicyRegistry.ALL.create(name, seed);
    PlacementPolicy viaGrants = PolicyRegistry.ALL.create(name, seed);
    if (viaArrays instanceof SupplyAware a && viaGrants instanceof SupplyAware g) {
      a.supply(Placement.supply(ledger));
      g.supply(Placement.supply(ledger));
      long[] free = Placement.freeOnHostNodes(ledger);
      a.freeOnHostNodes(free[0], free[1]);
      g.freeOnHostNodes(free[0], free[1]);
    }
    // the usage comes from pods a simple policy places
    Placement filler = new Placement(ledger, new BinPackPolicy());
    CandidateGrant candidate = new CandidateGrant();
    for (int step = 0; step < STEPS; step++) {
      PodDemand pod = PlacementDifferentialTest.randomPod(rnd, "p" + step, nodes);
      viaArrays.observe(pod);
      viaGrants.observe(pod);
      for (GpuNode node : nodes) {
        NodeUsage u = ledger.nodeUsage(node.name());
        if (u == null || u.size() == 0) {
          continue;
        }
        NodeView view = view(u);
        fill(rnd, candidate, pod, u, seen);
        double fromArrays = viaArrays.scoreCandidate(view, pod, candidate);
        double fromGrants = viaGrants.score(view, pod, candidate.grants(view, pod));
        assertThat(fromArrays)
            .as("%s seed %d step %d node %s pod %s", name, seed, step, node.name(), pod)
            .isEqualTo(fromGrants);
        seen.compared++;
        if (!complete(candidate, pod)) {
          continue;
        }
        // what an outcome keeps: one packed array, rebuilt into the same grants
        assertThat(CandidateGrant.grants(u, pod, candidate.packed()))
            .as("packed, seed %d step %d node %s", seed, step, node.name())
            .isEqualTo(candidate.grants(view, pod));
        seen.packed++;
        if (node.cpuMilli() > 0) {
          seen.hostTracked++;
        }
      }
      Optional<Allocation> placed = filler.place(pod);
      if (placed.isPresent() && rnd.nextInt(4) != 0) {
        try {
          ledger.commit(placed.get(), pod.cpuMilli(), pod.memoryMib());
        } catch (OverCommitException e) {
          throw new AssertionError(e);
        }
      }
    }
  }

  /**
   * A random candidate for the pod on the node: each container granted in full, in part (whole
   * GPUs) or, but for one, not at all; a share on any GPU with room for it (else any GPU), whole
   * GPUs on distinct GPUs.
   */
  private static void fill(
      Random rnd, CandidateGrant candidate, PodDemand pod, NodeUsage u, Seen seen) {
    candidate.reset(pod);
    int n = u.size();
    int[] hits = new int[n];
    int grantedContainers = 0;
    boolean partial = false;
    // the engine scores a candidate once at least one container has a GPU
    int first = rnd.nextInt(pod.containers().size());
    for (int c = 0; c < pod.containers().size(); c++) {
      GpuDemand d = pod.containers().get(c);
      if (c != first && rnd.nextInt(6) == 0) {
        partial = true;
        continue;
      }
      if (d.isShare()) {
        int i = rnd.nextInt(n);
        for (int tries = 0; tries < 4 && u.freeMilli(i) < d.computeMilli(); tries++) {
          i = rnd.nextInt(n);
        }
        long mem = rnd.nextInt(3) == 0 ? 0 : (long) (rnd.nextDouble() * u.memoryMib(i));
        candidate.set(c, 0, i, d.computeMilli(), mem);
        candidate.setGranted(c, 1);
        hits[i]++;
      } else {
        int k = Math.min(d.wholeGpus(), n);
        int count = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(k) : k;
        partial |= count < d.wholeGpus();
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          free.add(i);
        }
        for (int j = 0; j < count; j++) {
          int i = free.remove(rnd.nextInt(free.size()));
          candidate.set(c, j, i, GpuDemand.WHOLE_GPU_MILLI, u.memoryMib(i));
          hits[i]++;
          seen.wholeGpus++;
        }
        candidate.setGranted(c, count);
      }
      grantedContainers++;
    }
    if (partial) {
      seen.partial++;
    }
    if (grantedContainers > 1) {
      seen.multiContainer++;
    }
    for (int h : hits) {
      if (h > 1) {
        seen.sameGpuTwice++;
        break;
      }
    }
  }

  private static NodeView view(NodeUsage u) {
    GpuNode node = u.node();
    long cpu = node.cpuMilli() == 0 ? 0 : u.freeCpuMilli();
    long mem = node.memoryMib() == 0 ? 0 : u.freeHostMemoryMib();
    return new NodeView(node, u.usage(), cpu, mem);
  }
}
