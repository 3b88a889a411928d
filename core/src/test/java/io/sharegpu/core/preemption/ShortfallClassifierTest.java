package io.sharegpu.core.preemption;

import static io.sharegpu.core.preemption.NodeScenario.A100;
import static io.sharegpu.core.preemption.NodeScenario.H100;
import static io.sharegpu.core.preemption.NodeScenario.aNode;
import static io.sharegpu.core.preemption.NodeScenario.gpu;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.BinPackPolicy;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ShortfallClassifierTest {

  private static PodDemand share(int milli, long mib) {
    return PodDemand.share("ns/new", "uid-new", milli, mib);
  }

  private static PodDemand pod(GpuDemand... containers) {
    return PodDemand.of("ns/new", "uid-new", containers);
  }

  /** Two busy A100s (g0, g1) and one busy H100 (g2), every GPU 90% held by others. */
  private static NodeScenario busyNode() {
    return aNode()
        .withGpus(2, A100)
        .withGpus(1, H100)
        .share("a", 0, 900, 1000, 0)
        .share("b", 1, 900, 1000, 0)
        .share("c", 2, 900, 1000, 0);
  }

  static Stream<Arguments> shortfalls() {
    return Stream.of(
        Arguments.of("capacity held by others", share(500, 1000), true, "other pods hold"),
        Arguments.of(
            "model allowed on one GPU", share(500, 0).withModels(Set.of("h100")), true, ""),
        Arguments.of(
            "no GPU of an allowed model",
            share(100, 0).withModels(Set.of("l4")),
            false,
            "allowed models: l4"),
        Arguments.of(
            "memory larger than any GPU", share(100, 90000), false, "largest healthy GPU 81559"),
        Arguments.of(
            "memory larger than the A100s only", share(100, 60000), true, "other pods hold"),
        Arguments.of(
            "more whole GPUs than the node has",
            pod(GpuDemand.whole("main", 4, 0)),
            false,
            "needs 4 whole GPUs; the node has 3"),
        Arguments.of(
            "whole GPUs of an allowed model",
            pod(GpuDemand.whole("main", 2, 0)).withModels(Set.of("h100")),
            false,
            "the node has 1 the pod may use"),
        Arguments.of(
            "pinned GPU absent",
            share(100, 0).withPinned(Set.of("GPU-elsewhere")),
            false,
            "pinned to 1 GPU(s)"),
        Arguments.of("pinned GPU present", share(100, 0).withPinned(Set.of(gpu(2))), true, ""),
        Arguments.of(
            "whole GPUs over containers",
            pod(GpuDemand.whole("x", 2, 0), GpuDemand.whole("y", 2, 0)),
            false,
            "needs 4 whole GPUs over its containers"),
        Arguments.of(
            "containers that fit together on the idle node",
            pod(GpuDemand.whole("x", 2, 0), GpuDemand.share("y", 500, 0)),
            true,
            ""),
        Arguments.of(
            "several containers: resolvable unless one alone can never fit",
            pod(GpuDemand.whole("x", 2, 0), GpuDemand.share("y", 100, 0))
                .withModels(Set.of("a100")),
            true,
            ""),
        Arguments.of(
            "more host CPU than the node has",
            share(100, 0).withHost(64_000, 0),
            false,
            "host CPU"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shortfalls")
  void tellsResolvableFromUnresolvable(
      String name, PodDemand pod, boolean resolvable, String reason) {
    NodeScenario s = busyNode().withHostCpu(32_000);

    Shortfall shortfall = s.classifier().classify(pod, NodeScenario.NODE);

    assertThat(shortfall.preemptionCouldHelp()).as(shortfall.reason()).isEqualTo(resolvable);
    assertThat(shortfall.reason()).contains(reason);
    assertThat(shortfall)
        .isInstanceOf(resolvable ? Shortfall.Resolvable.class : Shortfall.Unresolvable.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shortfalls")
  void isExactForOneContainerAndNeverUnresolvableWhereTheEmptiedNodeFits(
      String name, PodDemand pod, boolean resolvable, String reason) {
    NodeScenario s = busyNode().withHostCpu(32_000);
    Ledger l = s.ledger.copy();
    for (PreemptionCandidate c : s.candidates) {
      l.release(c.podUid());
    }
    boolean fitsIdle =
        new Placement(l, new BinPackPolicy())
            .filter(pod, List.of(NodeScenario.NODE))
            .feasible()
            .contains(NodeScenario.NODE);

    if (pod.containers().size() == 1) {
      assertThat(fitsIdle).isEqualTo(resolvable);
    } else if (!resolvable) {
      assertThat(fitsIdle).isFalse();
    }
  }

  @Test
  void aNodeOfMigInstancesNeverTakesAWholeGpu() {
    Ledger l = new Ledger();
    Gpu parent = new Gpu("GPU-p", 0, A100, 40960, 1000, true, null, null);
    Gpu mig = new Gpu("MIG-a", 1, A100, 20096, 428, true, "GPU-p", "3g.20gb");
    l.putNode(GpuNode.of("m", List.of(parent, mig)));
    Shortfall shortfall =
        new ShortfallClassifier(l).classify(pod(GpuDemand.whole("main", 1, 0)), "m");
    assertThat(shortfall.preemptionCouldHelp()).isFalse();
    assertThat(shortfall.reason()).contains("the node has 0 the pod may use");
  }
}
