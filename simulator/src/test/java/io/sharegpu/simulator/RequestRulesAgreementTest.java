package io.sharegpu.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.api.request.GpuRequestRules;
import io.sharegpu.core.request.GpuDemand;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * core cannot depend on api, so {@link GpuDemand} guards its own invariants: they must accept
 * exactly the compute the {@link GpuRequestRules} accept, and every limit the rules accept.
 */
class RequestRulesAgreementTest {

  @Test
  void coreDemandAcceptsExactlyTheComputeTheRulesAccept() {
    for (int milli = -2; milli <= 10_000; milli++) {
      assertThat(accepts(milli, 0))
          .as("%dm", milli)
          .isEqualTo(GpuRequestRules.isValidCompute(milli));
    }
  }

  @Test
  void coreDemandAcceptsEveryLimitTheRulesAccept() {
    for (int milli = 1; milli <= 3000; milli += 7) {
      if (!GpuRequestRules.isValidCompute(milli)) {
        continue;
      }
      for (int limit = 0; limit <= 1200; limit += 3) {
        if (GpuRequestRules.limitProblem(milli, limit).isEmpty()) {
          assertThat(accepts(milli, limit)).as("%dm limit %d", milli, limit).isTrue();
        }
      }
    }
  }

  @Test
  void tracePodsFollowTheRules() {
    assertThatThrownBy(() -> new TracePod("p", 0, 0, 1, 500, Set.of("h100 pcie")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gpu_spec \"h100 pcie\"");
    assertThat(new TracePod("p", 0, 0, 2, 1000, Set.of("v100m16")).gpuRequestMilli())
        .isEqualTo(2000);
  }

  private static boolean accepts(int milli, int limit) {
    try {
      new GpuDemand("main", milli, 0, limit);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
