package io.sharegpu.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class VictimSetCostTest {

  private static VictimSetCost cost(int violations, int victims, int highest, long sum, long lost) {
    return new VictimSetCost(violations, victims, highest, sum, lost);
  }

  @Test
  void comparesBudgetsThenCountThenHighestThenSumThenLost() {
    assertThat(cost(0, 5, 9, 45, 9)).isLessThan(cost(1, 1, 0, 0, 0));
    assertThat(cost(0, 1, 10, 10, 9)).isLessThan(cost(0, 2, 0, 0, 0));
    assertThat(cost(0, 2, 5, 10, 9)).isLessThan(cost(0, 2, 10, 10, 0));
    assertThat(cost(0, 2, 5, 6, 9)).isLessThan(cost(0, 2, 5, 10, 0));
    assertThat(cost(0, 2, 5, 6, 1)).isLessThan(cost(0, 2, 5, 6, 2));
    assertThat(VictimSetCost.NONE).isLessThan(cost(0, 1, Integer.MIN_VALUE, 0, 0));
  }

  @Test
  void lostGpuTimeIsComputeHeldTimesSecondsRun() {
    Allocation twoWhole =
        new Allocation(
            "ns/a",
            "a",
            "n1",
            List.of(
                new ContainerGrant(
                    "main",
                    List.of(new GpuGrant("g0", 1000, 1), new GpuGrant("g1", 1000, 1)),
                    1000)),
            AllocationState.BOUND);
    Instant now = Instant.parse("2026-12-01T12:00:00Z");

    PreemptionCandidate c = PreemptionCandidate.of(twoWhole, 7, true, now.minusSeconds(60), now);

    assertThat(c.lostMilliGpuSeconds()).isEqualTo(120_000);
    assertThat(
            PreemptionCandidate.of(twoWhole, 7, true, now.plusSeconds(5), now)
                .lostMilliGpuSeconds())
        .isZero();
    assertThat(VictimSetCost.of(List.of(c, c))).isEqualTo(new VictimSetCost(2, 2, 7, 14, 240_000));
  }
}
