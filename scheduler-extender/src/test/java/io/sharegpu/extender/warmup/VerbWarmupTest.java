package io.sharegpu.extender.warmup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.extender.ExtenderProperties;
import io.sharegpu.extender.web.WireCodec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class VerbWarmupTest {

  @Test
  void everyCycleDecidesAPodOnTheMadeUpClusterForEveryProductPolicy() {
    for (String policy : PolicyRegistry.PRODUCT.names()) {
      VerbWarmup warmup =
          new VerbWarmup(new WireCodec(), PolicyRegistry.PRODUCT.create(policy, 1L));
      // each cycle must reach the placement and answer feasible nodes, not an Error or no-GPU
      assertThat(warmup.cycles(200)).as(policy).isEqualTo(200);
    }
  }

  @Test
  void runMakesItsOwnPolicyInstanceAndNoneForZeroCycles() {
    AtomicInteger made = new AtomicInteger();
    Duration none =
        VerbWarmup.run(
            new WireCodec(),
            () -> {
              made.incrementAndGet();
              return PolicyRegistry.PRODUCT.create("sharegpu", 1L);
            },
            0);
    assertThat(made).hasValue(0);
    assertThat(none).isLessThan(Duration.ofSeconds(1));
    VerbWarmup.run(
        new WireCodec(),
        () -> {
          made.incrementAndGet();
          return PolicyRegistry.PRODUCT.create("sharegpu", 1L);
        },
        20);
    assertThat(made).hasValue(1);
  }

  @Test
  void warmupCyclesDefaultAndBounds() {
    assertThat(new ExtenderProperties(null, null, null, null, null, null).warmupCycles())
        .isEqualTo(ExtenderProperties.DEFAULT_WARMUP_CYCLES);
    assertThat(new ExtenderProperties(null, null, null, null, null, 0).warmupCycles()).isZero();
    assertThatThrownBy(() -> new ExtenderProperties(null, null, null, null, null, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("warmup-cycles");
  }
}
