package io.sharegpu.controller.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseFenceTest {

  private static final long S = 1_000_000_000L;

  private final LeaseFence fence = new LeaseFence(Duration.ofSeconds(10));

  @Test
  void refusesWritesBeforeTheFirstRenewal() {
    assertThat(fence.mayWrite(0)).isFalse();
    assertThat(fence.mayWrite(5 * S)).isFalse();
  }

  @Test
  void allowsWritesUntilTheRenewDeadlineAfterTheStartOfTheLastRenewal() {
    fence.renewed(100 * S);

    assertThat(fence.mayWrite(100 * S)).isTrue();
    assertThat(fence.mayWrite(109 * S + S / 2)).isTrue();
    assertThat(fence.mayWrite(110 * S)).isFalse();
  }

  @Test
  void aLaterRenewalMovesTheLimitAndAnEarlierOneDoesNotMoveItBack() {
    fence.renewed(100 * S);
    fence.renewed(102 * S);
    fence.renewed(101 * S); // a slow renewal that started earlier and finished last

    assertThat(fence.mayWrite(111 * S)).isTrue();
    assertThat(fence.mayWrite(112 * S)).isFalse();
  }

  @Test
  void losingTheLeaseRefusesWritesAtOnceEvenWithinTheDeadline() {
    fence.renewed(100 * S);
    fence.lost();

    assertThat(fence.mayWrite(100 * S + 1)).isFalse();
  }

  @Test
  void worksAcrossTheSignChangeOfNanoTime() {
    long start = Long.MAX_VALUE - S;
    fence.renewed(start);

    long sixSecondsLater = start + 6 * S; // wraps around to a negative number
    assertThat(sixSecondsLater).isNegative();
    assertThat(fence.mayWrite(sixSecondsLater)).isTrue();
    assertThat(fence.mayWrite(sixSecondsLater + 4 * S)).isFalse();
  }
}
