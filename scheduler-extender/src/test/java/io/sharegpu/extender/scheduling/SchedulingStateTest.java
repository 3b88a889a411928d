package io.sharegpu.extender.scheduling;

import static io.sharegpu.extender.Fixtures.addNode;
import static io.sharegpu.extender.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.mapping.PodDemands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The scheduling state's verbs, reservations and bind tickets, with a clock moved by hand. */
class SchedulingStateTest {

  /** Records what the state shows it. */
  static final class RecordingPolicy implements PlacementPolicy {
    final List<String> observed = new ArrayList<>();

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      return 0;
    }

    @Override
    public void observe(PodDemand pod) {
      observed.add(pod.podUid());
    }
  }

  private static Optional<Allocation> held(ClusterFixture c, String uid) {
    return c.withLedger(l -> l.allocation(uid));
  }

  private static FilterDecision filter(ClusterFixture c, String name, int milli) {
    return c.state()
        .filter(PodDemands.of(pod("ns", name, "uid-" + name, milli, 0)), 0, List.of("n1"));
  }

  @Test
  void eachPodIsShownToThePolicyOnceHoweverOftenItIsFiltered() {
    RecordingPolicy policy = new RecordingPolicy();
    ClusterFixture c = new ClusterFixture(null, policy, Duration.ofSeconds(30));
    c.markReady();

    filter(c, "a", 250);
    filter(c, "a", 250);
    filter(c, "b", 500);

    assertThat(policy.observed).containsExactly("uid-a", "uid-b");
  }

  @Test
  void aReservationExpiresWhenItsTtlHasPassedAndNotBefore() {
    ClusterFixture c = ClusterFixture.ready("binpack");
    addNode(c, "n1", "H100", 1, 81559);
    assertThat(filter(c, "a", 1000)).isInstanceOf(FilterDecision.Filtered.class);
    // one feasible node: filter reserved the pod's GPU there
    assertThat(held(c, "uid-a")).map(Allocation::state).contains(AllocationState.RESERVED);
    assertThat(c.state().pendingReservations()).isEqualTo(1);

    c.clock().advance(Duration.ofSeconds(29));
    c.state().expireReservations(c.clock().instant());
    assertThat(held(c, "uid-a")).isPresent();

    c.clock().advance(Duration.ofSeconds(1));
    c.state().expireReservations(c.clock().instant());
    assertThat(held(c, "uid-a")).isEmpty();
    assertThat(c.state().expiredReservations()).isEqualTo(1);
    assertThat(c.state().pendingReservations()).isZero();
  }

  @Test
  void theVerbsExpireDueReservationsBeforeTheyDecide() {
    ClusterFixture c = ClusterFixture.ready("binpack");
    addNode(c, "n1", "H100", 1, 81559);
    filter(c, "a", 1000);
    FilterDecision blocked = filter(c, "b", 1000);
    assertThat(((FilterDecision.Filtered) blocked).feasible()).isEmpty();

    c.clock().advance(Duration.ofSeconds(31)); // no expiry call: the verb itself expires
    FilterDecision open = filter(c, "b", 1000);
    assertThat(((FilterDecision.Filtered) open).feasible()).containsExactly("n1");
  }

  @Test
  void aReservationTakenOverByABindDoesNotExpireWhileTheBindRuns() {
    ClusterFixture c = ClusterFixture.ready("binpack");
    addNode(c, "n1", "H100", 1, 81559);
    PodDemand a = PodDemand.share("ns/a", "uid-a", 500, 0);
    c.state().reserve(a, "n1");
    try (BindTicket ticket = c.state().beginBind(a, "n1")) {
      assertThat(ticket.allocation()).isPresent();
      c.passReservationTtl();
      assertThat(held(c, "uid-a")).isPresent();
      ticket.commit();
    }
    c.passReservationTtl();
    assertThat(held(c, "uid-a")).map(Allocation::state).contains(AllocationState.BOUND);
  }

  @Test
  void aTicketReleasesItsGpusWhenClosedWithoutCommit() {
    ClusterFixture c = ClusterFixture.ready("binpack");
    addNode(c, "n1", "H100", 1, 81559);
    PodDemand a = PodDemand.share("ns/a", "uid-a", 500, 0);
    try (BindTicket ticket = c.state().beginBind(a, "n1")) {
      assertThat(held(c, "uid-a")).isPresent();
      // a second bind of the same pod is refused and its ticket ends nothing
      try (BindTicket second = c.state().beginBind(a, "n1")) {
        assertThat(second.refusal()).contains("another bind of this pod is in progress");
      }
      assertThat(held(c, "uid-a")).isPresent();
    }
    assertThat(held(c, "uid-a")).isEmpty();
    // and the pod may be bound again
    try (BindTicket again = c.state().beginBind(a, "n1")) {
      assertThat(again.refusal()).isEmpty();
      again.commit();
    }
    assertThat(held(c, "uid-a")).map(Allocation::state).contains(AllocationState.BOUND);
  }

  @Test
  void aTicketKeptReservedHoldsItsGpusUntilTheTtlPasses() {
    ClusterFixture c = ClusterFixture.ready("binpack");
    addNode(c, "n1", "H100", 1, 81559);
    PodDemand a = PodDemand.share("ns/a", "uid-a", 500, 0);
    try (BindTicket ticket = c.state().beginBind(a, "n1")) {
      ticket.keepReserved();
    }
    assertThat(held(c, "uid-a")).map(Allocation::state).contains(AllocationState.RESERVED);
    c.passReservationTtl();
    assertThat(held(c, "uid-a")).isEmpty();
  }
}
