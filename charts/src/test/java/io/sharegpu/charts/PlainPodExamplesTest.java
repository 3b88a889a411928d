package io.sharegpu.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.sharegpu.testcluster.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The manifests in examples/plain-pods ask for GPU shares the way DESIGN.md says a pod must. */
class PlainPodExamplesTest {

  static Stream<Path> examples() throws Exception {
    Path folder = TestCluster.repoRoot().resolve("examples/plain-pods");
    try (Stream<Path> files = Files.list(folder)) {
      List<Path> yaml =
          files.filter(f -> f.toString().endsWith(".yaml")).sorted().collect(Collectors.toList());
      assertThat(yaml).hasSizeGreaterThanOrEqualTo(3);
      return yaml.stream();
    }
  }

  @ParameterizedTest
  @MethodSource("examples")
  void usesTheShareGpuSchedulerAndAValidShare(Path file) throws Exception {
    List<HasMetadata> objects = RenderedChart.parse(Files.readString(file));
    assertThat(objects).as(file.toString()).hasSize(1);
    PodSpec pod = podSpec(objects.get(0));
    assertThat(pod.getSchedulerName()).isEqualTo("sharegpu-scheduler");
    for (Container container : pod.getContainers()) {
      Quantity milli = container.getResources().getLimits().get("sharegpu.io/gpu-milli");
      assertThat(milli).as("%s: sharegpu.io/gpu-milli limit", file).isNotNull();
      int value = Integer.parseInt(milli.getAmount());
      // < 1000: a share of one GPU; >= 1000: whole GPUs, a multiple of 1000
      assertThat(value > 0 && (value < 1000 || value % 1000 == 0))
          .as("%s: %s", file, value)
          .isTrue();
    }
  }

  private static PodSpec podSpec(HasMetadata object) {
    if (object instanceof Pod) {
      return ((Pod) object).getSpec();
    }
    if (object instanceof Deployment) {
      return ((Deployment) object).getSpec().getTemplate().getSpec();
    }
    if (object instanceof Job) {
      return ((Job) object).getSpec().getTemplate().getSpec();
    }
    throw new AssertionError("unexpected kind " + object.getKind());
  }
}
