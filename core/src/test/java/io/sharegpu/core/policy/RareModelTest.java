package io.sharegpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A model nobody asked for yet is not given away: a generated trace where the demand for a small
 * GPU model arrives only after the cluster is three quarters full.
 */
class RareModelTest {

  /**
   * Eight nodes of four G2 GPUs and two nodes of two A10 GPUs (hosts not tracked). First 60 pods:
   * shares of 200–700m, one in ten restricted to G2, the rest to any model (about 27 of the 36
   * GPUs). Then four whole-GPU pods restricted to A10: they fit only if every A10 GPU was left
   * idle. Without a price for a model nobody asked for, the unrestricted shares go to the A10s (the
   * G2 GPUs cost the G2-only pods' pressure, the A10s nothing, and FGD's measure counts the A10s'
   * free compute as a fragment for the G2-only shapes) and the A10 pods fail.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void theFirstPodsOfARareModelFindItsGpusWhole(long seed) {
    PolicyTestSupport c = new PolicyTestSupport();
    for (int n = 0; n < 8; n++) {
      c.node("g2-" + n, 4, 0, "G2");
    }
    c.node("a10-0", 2, 0, "A10").node("a10-1", 2, 0, "A10");
    ShareGpuPolicy policy = new ShareGpuPolicy();
    Placement placement = new Placement(c.ledger(), policy);
    Random random = new Random(seed);
    List<PodDemand> trace = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      PodDemand p = PolicyTestSupport.share("s" + i, 200 + 50 * random.nextInt(11), 0);
      trace.add(random.nextInt(10) == 0 ? p.withModels(Set.of("G2")) : p);
    }
    for (int i = 0; i < 4; i++) {
      trace.add(PolicyTestSupport.whole("a10-pod" + i, 1, 0).withModels(Set.of("A10")));
    }
    List<String> failed = new ArrayList<>();
    for (PodDemand p : trace) {
      policy.observe(p);
      Optional<Allocation> a = placement.place(p);
      if (a.isPresent()) {
        c.ledger().commit(a.get(), 0, 0);
      } else {
        failed.add(p.podUid());
      }
    }
    assertThat(failed).as("pods that found no GPU").noneMatch(n -> n.startsWith("a10-pod"));
  }
}
