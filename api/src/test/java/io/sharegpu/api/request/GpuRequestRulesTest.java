package io.sharegpu.api.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GpuRequestRulesTest {

  @ParameterizedTest
  @CsvSource({
    "1, ''",
    "999, ''",
    "1000, ''",
    "3000, ''",
    "0, ' must be > 0'",
    "-5, ' must be > 0'",
    "1500, ' is >= 1000 but not a multiple of 1000 (whole GPUs are 1000, 2000, ...)'",
    "2001, ' is >= 1000 but not a multiple of 1000 (whole GPUs are 1000, 2000, ...)'"
  })
  void computeIsAShareOrWholeGpus(int milli, String problem) {
    assertThat(GpuRequestRules.computeProblem(milli))
        .isEqualTo(problem.isEmpty() ? Optional.empty() : Optional.of(problem));
    assertThat(GpuRequestRules.isValidCompute(milli)).isEqualTo(problem.isEmpty());
  }

  @ParameterizedTest
  @CsvSource({
    "250, 250, ''",
    "250, 1000, ''",
    "250, 200, ' is below the request 250'",
    "250, 1001, ' is above 1000: a share can use at most one whole GPU'",
    "2000, 1000, ''",
    "2000, 500, ' must be 1000 for whole GPUs'"
  })
  void aShareLimitLiesBetweenItsRequestAndOneGpu(int request, int limit, String problem) {
    assertThat(GpuRequestRules.limitProblem(request, limit))
        .isEqualTo(problem.isEmpty() ? Optional.empty() : Optional.of(problem));
  }

  @ParameterizedTest
  @CsvSource({"H100, true", "A100-SXM4_40GB.v2, true", "'H100 PCIe', false", "'', false"})
  void modelSyntax(String model, boolean valid) {
    assertThat(GpuRequestRules.isModel(model)).isEqualTo(valid);
  }

  @ParameterizedTest
  @CsvSource({"GPU-e4aea6a9-1b46, true", "MIG-GPU-1/2/0, true", "-GPU, false", "'GPU 1', false"})
  void uuidSyntax(String uuid, boolean valid) {
    assertThat(GpuRequestRules.isGpuUuid(uuid)).isEqualTo(valid);
  }

  @ParameterizedTest
  @CsvSource({"1500, 1000", "250, 200", "250, 1200", "0, 0"})
  void containerRequestsRefuseWhatTheRulesRefuse(int milli, int limit) {
    assertThatThrownBy(() -> new ContainerGpuRequest("main", milli, 0, limit))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
