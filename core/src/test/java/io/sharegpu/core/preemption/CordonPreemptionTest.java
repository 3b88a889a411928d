package io.sharegpu.core.preemption;

import static io.sharegpu.core.preemption.NodeScenario.H100;
import static io.sharegpu.core.preemption.NodeScenario.aNode;
import static io.sharegpu.core.preemption.NodeScenario.gpu;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import org.junit.jupiter.api.Test;

/** Preemption never frees a cordoned GPU for a new pod, nor places the preemptor there. */
class CordonPreemptionTest {
  private static final int HIGH = 100;

  @Test
  void evictsFromTheGpuThatIsNotCordonedOnly() {
    // the pod on the cordoned GPU is the cheaper victim, yet its GPU takes no new pod
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .share("on-cordoned", 0, 800, 1000, 0)
            .share("a", 1, 400, 1000, 5)
            .share("b", 1, 400, 1000, 5)
            .withCordon(0, "Xid 79");

    PreemptionPlan plan = s.select(PodDemand.share("ns/new", "uid-new", 500, 1000), HIGH);

    assertThat(plan).isInstanceOf(PreemptionPlan.Evict.class);
    PreemptionPlan.Evict evict = (PreemptionPlan.Evict) plan;
    assertThat(evict.victimUids()).hasSize(1).doesNotContain("on-cordoned");
    assertThat(evict.preemptorAllocation().uuids()).containsExactly(gpu(1));
  }

  @Test
  void wholeGpuOnANodeWhoseOtherGpusAreCordonedIsImpossible() {
    NodeScenario s =
        aNode()
            .withGpus(2, H100)
            .whole("w0", 0, 0)
            .whole("w1", 0, 1)
            .withCordon(0, "Xid 79")
            .withCordon(1, "fan");

    PreemptionPlan plan =
        s.select(PodDemand.of("ns/new", "uid-new", GpuDemand.whole("main", 1, 0)), HIGH);

    assertThat(plan).isInstanceOf(PreemptionPlan.Impossible.class);
    assertThat(((PreemptionPlan.Impossible) plan).reason()).contains("is cordoned: Xid 79");
    assertThat(
            s.classifier()
                .classify(PodDemand.of("ns/new", "uid-new", GpuDemand.whole("main", 1, 0)), "n1")
                .preemptionCouldHelp())
        .isFalse();
  }
}
