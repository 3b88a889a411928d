package io.sharegpu.extender.web;

import static io.sharegpu.extender.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GPUNodeSpec;
import io.sharegpu.api.gpunode.GpuCordon;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.scheduling.BindTicket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Filter and bind over cordoned GPUs: never placed there, and the words say why. */
class CordonFilterTest {
  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final String XID = "Xid 79, card to be replaced";

  private ClusterFixture view;
  private ExtenderHandler handler;

  @BeforeEach
  void setUp() {
    view = Fixtures.view("binpack");
    Fixtures.addNode(view, "n1", H100, 2, 81559);
    handler =
        view.handler(
            (ns, name, uid, node) -> BindOutcome.bound(null),
            new PodEvents(null),
            ExtenderMetrics.inMemory());
  }

  private void cordon(int... indexes) {
    GPUNode g = Fixtures.gpuNode("n1", H100, 2, 81559);
    GPUNodeSpec spec = new GPUNodeSpec("n1");
    List<GpuCordon> cordons = new ArrayList<>();
    for (int i : indexes) {
      cordons.add(new GpuCordon(Fixtures.uuid("n1", i), XID, "2026-12-05T07:00:00Z"));
    }
    spec.setCordonedGpus(cordons);
    g.setSpec(spec);
    view.onGpuNode(g);
  }

  @Test
  void aShareGoesToTheGpuThatIsNotCordoned() {
    cordon(0);
    ExtenderFilterResult r =
        handler.filter(new ExtenderArgs(pod("ns", "a", "uid-a", 250, 0), null, List.of("n1")));
    assertThat(r.nodeNames()).containsExactly("n1");

    // the bind's own choice, under the node's lock (what PodBinder commits)
    try (BindTicket ticket = view.state().beginBind(demand("a"), "n1")) {
      assertThat(ticket.refusal()).isEmpty();
      assertThat(ticket.allocation().orElseThrow().uuids()).containsExactly(Fixtures.uuid("n1", 1));
    }
  }

  private static PodDemand demand(String name) {
    return PodDemand.share("ns/" + name, "uid-" + name, 250, 0);
  }

  @Test
  void everyGpuCordonedIsUnresolvableAndNamesTheReason() {
    cordon(0, 1);
    ExtenderFilterResult r =
        handler.filter(new ExtenderArgs(pod("ns", "a", "uid-a", 250, 0), null, List.of("n1")));

    assertThat(r.nodeNames()).isEmpty();
    assertThat(r.failedAndUnresolvableNodes().get("n1"))
        .startsWith("no GPU the pod may use: GPU GPU-n1-0 is cordoned: " + XID)
        .contains("GPU GPU-n1-1 is cordoned: " + XID);
    assertThat(r.failedNodes()).doesNotContainKey("n1");
  }

  @Test
  void cordonedGpuFreeAndOtherGpuFullIsResolvable() {
    cordon(0);
    view.withLedger(
        l -> {
          l.commit(
              new Allocation(
                  "ns/big",
                  "uid-big",
                  "n1",
                  List.of(
                      new ContainerGrant(
                          "main", List.of(new GpuGrant(Fixtures.uuid("n1", 1), 900, 1000)), 900)),
                  AllocationState.BOUND));
          return null;
        });
    ExtenderFilterResult r =
        handler.filter(new ExtenderArgs(pod("ns", "a", "uid-a", 250, 0), null, List.of("n1")));

    assertThat(r.failedNodes().get("n1")).contains("GPU GPU-n1-0 is cordoned: " + XID);
    assertThat(r.failedAndUnresolvableNodes()).doesNotContainKey("n1");
  }

  @Test
  void bindRefusesWhenTheOnlyFreeGpuWasCordonedAfterFilter() {
    ExtenderFilterResult r =
        handler.filter(new ExtenderArgs(pod("ns", "a", "uid-a", 250, 0), null, List.of("n1")));
    assertThat(r.nodeNames()).containsExactly("n1");
    cordon(0, 1);

    try (BindTicket ticket = view.state().beginBind(demand("a"), "n1")) {
      assertThat(ticket.refusal()).isEmpty();
      assertThat(ticket.allocation()).isEmpty();
      assertThat(ticket.noFit()).isPresent();
    }
    assertThat(view.<java.util.Optional<Allocation>>withLedger(l -> l.allocation("uid-a")))
        .isEmpty();
  }
}
