package io.sharegpu.core.preemption;

import static io.sharegpu.core.preemption.NodeScenario.H100;
import static io.sharegpu.core.preemption.NodeScenario.NODE;
import static io.sharegpu.core.preemption.NodeScenario.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.placement.BinPackPolicy;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.preemption.NominationGuard.Nominee;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NominationGuardTest {
  private static final int LOW = 0;
  private static final int HIGH = 100;

  private static Nominee nominee(int milli, int priority) {
    return new Nominee(PodDemand.share("ns/urgent", "urgent", milli, 1000), priority);
  }

  private static PodDemand share(int milli) {
    return PodDemand.share("ns/late", "late", milli, 1000);
  }

  private static Optional<Nominee> pushedOut(
      NodeScenario s, PodDemand pod, int priority, Nominee... nominees) {
    return new NominationGuard(s.ledger, new Placement(s.ledger, new BinPackPolicy()))
        .pushedOut(pod, priority, NODE, List.of(nominees));
  }

  /**
   * g0: the victim v (600m) and k (300m); g1: m (800m). urgent (600m) was nominated for v's room.
   */
  private static NodeScenario afterPreemption() {
    return aNode()
        .withGpus(2, H100)
        .share("v", 0, 600, 1000, LOW)
        .share("k", 0, 300, 1000, LOW)
        .share("m", 1, 800, 1000, LOW);
  }

  @Test
  void aLowerPriorityPodMayNotTakeTheRoomFreedForTheNominee() {
    NodeScenario s = afterPreemption();
    s.ledger.release("v");
    // node sums would let 300m in beside the nominee (300 + 800 + 600 + 300 = 2000), one GPU not
    Nominee urgent = nominee(600, HIGH);

    assertThat(pushedOut(s, share(300), LOW, urgent)).contains(urgent);
  }

  @Test
  void aPodThatFitsBesideTheNomineeGoes() {
    NodeScenario s = afterPreemption();
    s.ledger.release("v");

    // 200m fills g1 to 1000m, the nominee still fits g0
    assertThat(pushedOut(s, share(200), LOW, nominee(600, HIGH))).isEmpty();
  }

  @Test
  void whileTheVictimsTerminateTheirRoomIsCountedAsComing() {
    NodeScenario s =
        aNode().withGpus(2, H100).share("v", 0, 700, 1000, LOW).share("m", 1, 200, 1000, LOW);
    s.ledger.setState("v", AllocationState.TERMINATING);
    Nominee urgent = nominee(900, HIGH);

    // 100m fits beside m on g1 now and leaves g0 to the nominee once v is gone
    assertThat(pushedOut(s, share(100), LOW, urgent)).isEmpty();
    // 500m fits only g1 now (g0 is still held) and so also leaves g0 to the nominee
    assertThat(pushedOut(s, share(500), LOW, urgent)).isEmpty();
  }

  @Test
  void aPodOfHigherPriorityThanTheNomineeIsNotHeldBack() {
    NodeScenario s = afterPreemption();
    s.ledger.release("v");

    assertThat(pushedOut(s, share(300), HIGH + 1, nominee(600, HIGH))).isEmpty();
    // equal priority is held back, as kube-scheduler counts nominated pods of equal priority
    assertThat(pushedOut(s, share(300), HIGH, nominee(600, HIGH))).isPresent();
  }

  @Test
  void aNomineeWhoseRoomIsNotComingHoldsNothingBack() {
    NodeScenario s = afterPreemption();
    s.ledger.release("v");
    Nominee twoWhole =
        new Nominee(PodDemand.of("ns/urgent", "urgent", GpuDemand.whole("main", 2, 0)), HIGH);

    assertThat(pushedOut(s, share(300), LOW, twoWhole)).isEmpty();
  }

  @Test
  void theNomineeItselfAndNomineesThatAlreadyHoldGpusAreIgnored() {
    NodeScenario s = afterPreemption();
    s.ledger.release("v");
    Nominee urgent = nominee(600, HIGH);

    assertThat(pushedOut(s, urgent.demand(), HIGH, urgent)).isEmpty();
    s.share("urgent", 0, 600, 1000, HIGH);
    s.ledger.release("k");
    assertThat(pushedOut(s, share(300), LOW, urgent)).isEmpty();
  }

  @Test
  void nomineesTakeTheirRoomHighestPriorityFirst() {
    NodeScenario s =
        aNode().withGpus(2, H100).share("v", 0, 1000, 1000, LOW).share("w", 1, 1000, 1000, LOW);
    s.ledger.release("v");
    s.ledger.release("w");
    Nominee first = new Nominee(PodDemand.share("ns/a", "a", 700, 1000), HIGH + 1);
    Nominee second = new Nominee(PodDemand.share("ns/b", "b", 700, 1000), HIGH);

    // each nominee gets a GPU of its own; a third pod of 400m would take the room of one of them
    assertThat(pushedOut(s, share(400), LOW, second, first)).contains(second);
    assertThat(pushedOut(s, share(300), LOW, second, first)).isEmpty();
  }
}
