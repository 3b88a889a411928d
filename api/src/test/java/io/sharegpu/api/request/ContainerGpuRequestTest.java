package io.sharegpu.api.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import org.junit.jupiter.api.Test;

class ContainerGpuRequestTest {

  @Test
  void shareIsOneGpuAndWholeGpusAreCounted() {
    assertThat(ContainerGpuRequest.share("a", 250, 0).gpuCount()).isEqualTo(1);
    assertThat(ContainerGpuRequest.share("a", 250, 0).wholeGpus()).isFalse();
    assertThat(ContainerGpuRequest.wholeGpus("a", 3, 0).gpuCount()).isEqualTo(3);
    assertThat(ContainerGpuRequest.wholeGpus("a", 3, 0).limitMilli()).isEqualTo(1000);
  }

  @Test
  void rejectsValuesTheParserWouldReject() {
    assertThatIllegalArgumentException().isThrownBy(() -> new ContainerGpuRequest("a", 0, 0, 0));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ContainerGpuRequest("a", 1500, 0, 1000));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ContainerGpuRequest("a", 250, 0, 200));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ContainerGpuRequest("a", 250, 0, 1001));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ContainerGpuRequest("a", 250, -1, 250));
    assertThatIllegalArgumentException().isThrownBy(() -> new ContainerGpuRequest("", 250, 0, 250));
  }

  @Test
  void podRequestNeedsUniqueContainers() {
    ContainerGpuRequest a = ContainerGpuRequest.share("a", 250, 0);

    assertThatIllegalArgumentException().isThrownBy(() -> PodGpuRequest.of());
    assertThatIllegalArgumentException().isThrownBy(() -> PodGpuRequest.of(a, a));
    assertThat(PodGpuRequest.of(a, ContainerGpuRequest.wholeGpus("b", 2, 0)).totalComputeMilli())
        .isEqualTo(2250);
  }

  @Test
  void invalidNeedsAnError() {
    assertThatIllegalArgumentException().isThrownBy(() -> new ParsedRequest.Invalid(List.of()));
  }
}
