package io.sharegpu.core.placement;

import static io.sharegpu.core.Fixtures.H100;
import static io.sharegpu.core.Fixtures.H100_MIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.Fixtures;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FitRulesTest {

  @Test
  void fourQuartersOfAGpuFitItsMemory() {
    GpuDemand quarter = GpuDemand.share("main", 250, 0);
    assertThat(FitRules.shareMemory(quarter, 1000, H100_MIB)).isEqualTo(20389);
    assertThat(4 * FitRules.shareMemory(quarter, 1000, H100_MIB)).isLessThanOrEqualTo(H100_MIB);
    assertThat(FitRules.shareMemory(GpuDemand.share("main", 1, 0), 1000, 500)).isEqualTo(1);
    assertThat(FitRules.shareMemory(GpuDemand.share("main", 250, 4096), 1000, H100_MIB))
        .isEqualTo(4096);
  }

  @Test
  void wholeGpusSplitTheirMemoryRoundingUp() {
    assertThat(FitRules.perGpuMemory(GpuDemand.whole("main", 3, 10_000))).isEqualTo(3334);
    assertThat(FitRules.perGpuMemory(GpuDemand.whole("main", 2, 0))).isZero();
    assertThat(FitRules.perGpuMemory(GpuDemand.share("main", 500, 9000))).isZero();
  }

  @Test
  void aShareTakesWhatIsLeftOnlyIfNobodyHoldsTheGpuWhole() {
    Ledger l = new Ledger();
    l.putNode(Fixtures.h100Node("n1", 2));
    l.commit(Fixtures.share("a", "n1", Fixtures.uuid("n1", 0), 800, 1000));
    l.commit(Fixtures.whole("b", "n1", H100_MIB, Fixtures.uuid("n1", 1)));
    NodeUsage u = l.nodeUsage("n1");
    GpuDemand fifth = GpuDemand.share("main", 200, 0);
    assertThat(FitRules.shareTakes(u, 0, fifth, 0, 0)).isEqualTo(16311);
    assertThat(FitRules.shareTakes(u, 0, fifth, 1, 0)).as("this pod took 1m before").isEqualTo(-1);
    assertThat(FitRules.shareTakes(u, 1, fifth, 0, 0)).as("held whole").isEqualTo(-1);
    assertThat(FitRules.shareTakesIdle(u, 1, fifth)).isEqualTo(16311);
    assertThat(FitRules.wholeTakes(u, 0, 0, 0)).as("in use").isFalse();
    assertThat(FitRules.wholeTakesIdle(u, 0, H100_MIB + 1)).as("too little memory").isFalse();
  }

  @Test
  void barsNameEveryRuleTheGpuBreaks() {
    Gpu sick = Gpu.whole("GPU-x", 0, H100, H100_MIB).withHealthy(false).withCordon("Xid 79");
    Ledger l = new Ledger();
    l.putNode(GpuNode.of("n1", List.of(sick)));
    NodeUsage u = l.nodeUsage("n1");
    PodDemand pod =
        PodDemand.share("ns/p", "p", 100, 0)
            .withModels(Set.of("a100"))
            .withPinned(Set.of("GPU-y"))
            .withExcluded(Set.of("GPU-x"));
    int bars = new FitRules(pod).bars(u, 0);
    assertThat(GpuBar.values())
        .filteredOn(b -> b.in(bars))
        .containsExactly(
            GpuBar.UNHEALTHY, GpuBar.MODEL, GpuBar.NOT_PINNED, GpuBar.EXCLUDED, GpuBar.CORDONED);
    assertThat(
            new FitRules(PodDemand.share("ns/p", "p", 100, 0).withModels(Set.of("h100")))
                .bars(u, 0))
        .isEqualTo(GpuBar.UNHEALTHY.bit() | GpuBar.CORDONED.bit());
  }
}
