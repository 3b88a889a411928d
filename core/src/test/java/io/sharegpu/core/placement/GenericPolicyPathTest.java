package io.sharegpu.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A policy without {@link GpuPreference} is asked to score every candidate grant; for the built-in
 * policies that must pick the same GPUs and nodes as their fast path.
 */
class GenericPolicyPathTest {

  /** Hides the fast path of a built-in policy. */
  private record ScoreOnly(PlacementPolicy inner) implements PlacementPolicy {
    @Override
    public String name() {
      return inner.name() + "-score-only";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      return inner.score(view, pod, grant);
    }
  }

  @Test
  void slowPathChoosesWhatTheFastPathChooses() {
    for (PlacementPolicy policy : List.of(new BinPackPolicy(), new SpreadPolicy())) {
      for (long seed = 1; seed <= 40; seed++) {
        Random rnd = new Random(seed);
        Ledger ledger = new Ledger();
        for (int n = 0; n < 3; n++) {
          List<Gpu> gpus = new ArrayList<>();
          for (int g = 0; g < 4; g++) {
            gpus.add(Gpu.whole("GPU-" + n + "-" + g, g, "NVIDIA H100 80GB HBM3", 81559));
          }
          ledger.putNode(GpuNode.of("n" + n, gpus));
        }
        Placement fast = new Placement(ledger, policy);
        Placement slow = new Placement(ledger, new ScoreOnly(policy));
        for (int i = 0; i < 40; i++) {
          PodDemand pod =
              rnd.nextInt(5) == 0
                  ? PodDemand.of(
                      "ns/p" + i, "p" + i, GpuDemand.whole("main", 1 + rnd.nextInt(2), 0))
                  : PodDemand.share("ns/p" + i, "p" + i, 50 * (1 + rnd.nextInt(19)), 0);
          Optional<Allocation> a = fast.place(pod);
          assertThat(slow.place(pod)).as("%s seed %d pod %d", policy.name(), seed, i).isEqualTo(a);
          a.ifPresent(ledger::commit);
        }
      }
    }
  }
}
