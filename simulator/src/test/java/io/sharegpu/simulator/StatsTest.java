package io.sharegpu.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void meanAndSampleStandardDeviation() {
    Stats s = Stats.of(2, 4, 4, 4, 5, 5, 7, 9);
    assertThat(s.mean()).isEqualTo(5.0);
    assertThat(s.std()).isCloseTo(Math.sqrt(32.0 / 7), within(1e-12));
  }

  @Test
  void skipsNaNAndHandlesOneOrNoValue() {
    assertThat(Stats.of(3, Double.NaN).mean()).isEqualTo(3);
    assertThat(Stats.of(3).std()).isZero();
    assertThat(Stats.of().mean()).isNaN();
  }

  @Test
  void seedSpecs() {
    assertThat(Main.seeds("42-44,50")).containsExactly(42L, 43L, 44L, 50L);
  }
}
