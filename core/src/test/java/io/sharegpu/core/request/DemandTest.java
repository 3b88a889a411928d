package io.sharegpu.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DemandTest {

  @ParameterizedTest
  @CsvSource({
    "0, 0, 0, computeMilli must be > 0",
    "1500, 0, 1000, must be a multiple of 1000",
    "100, -1, 100, memoryMib must be >= 0",
    "100, 0, 1001, limitMilli must be in 0..1000",
  })
  void rejectsInvalidContainerDemands(int milli, long mib, int limit, String message) {
    assertThatThrownBy(() -> new GpuDemand("c", milli, mib, limit))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("container c")
        .hasMessageContaining(message);
  }

  @Test
  void shareAndWholeAreTellApart() {
    assertThat(GpuDemand.share("c", 999, 0).isShare()).isTrue();
    assertThat(GpuDemand.share("c", 999, 0).wholeGpus()).isZero();
    assertThat(GpuDemand.whole("c", 3, 0).isShare()).isFalse();
    assertThat(GpuDemand.whole("c", 3, 0).wholeGpus()).isEqualTo(3);
  }

  @Test
  void podNeedsUniqueContainersAndLowerCasesModels() {
    assertThatThrownBy(
            () -> PodDemand.of("ns/p", "u", GpuDemand.share("a", 1, 0), GpuDemand.share("a", 2, 0)))
        .hasMessageContaining("container a appears twice");
    assertThatThrownBy(
            () -> new PodDemand("ns/p", "u", List.of(), Set.of(), Set.of(), Set.of(), 0, 0))
        .hasMessageContaining("no GPU container");
    assertThat(PodDemand.share("ns/p", "u", 100, 0).withModels(Set.of(" H100 ", "")).models())
        .containsExactly("h100");
  }
}
