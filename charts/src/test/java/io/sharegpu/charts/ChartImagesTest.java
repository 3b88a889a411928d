package io.sharegpu.charts;

import static io.sharegpu.charts.RenderedChart.render;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.sharegpu.testcluster.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The chart's default images are exactly the images {@code make images} builds. */
class ChartImagesTest {

  @Test
  void defaultImagesAreTheImagesTheBuildMakes() throws Exception {
    RenderedChart chart = render();
    Set<String> images = new TreeSet<>();
    Stream.concat(
            chart.all(Deployment.class).stream().map(d -> d.getSpec().getTemplate()),
            chart.all(DaemonSet.class).stream().map(d -> d.getSpec().getTemplate()))
        .map(PodTemplateSpec::getSpec)
        .flatMap(
            spec -> Stream.concat(spec.getInitContainers().stream(), spec.getContainers().stream()))
        .map(Container::getImage)
        .forEach(images::add);

    assertThat(images).isEqualTo(new TreeSet<>(builtImages()));
  }

  @Test
  void javaImagesAreTaggedWithTheChartsAppVersion() throws Exception {
    String chartYaml = Files.readString(RenderedChart.chartDir().resolve("Chart.yaml"));
    String appVersion =
        chartYaml
            .lines()
            .filter(l -> l.startsWith("appVersion:"))
            .map(l -> l.substring("appVersion:".length()).strip().replace("\"", ""))
            .findFirst()
            .orElseThrow();
    assertThat(builtImages())
        .filteredOn(image -> !image.contains("/kube-scheduler:"))
        .hasSize(4)
        .allMatch(image -> image.endsWith(":" + appVersion));
  }

  /** What {@code images/build --list} says it builds. */
  static List<String> builtImages() throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(TestCluster.repoRoot().resolve("images/build").toString(), "--list")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output.lines().filter(l -> !l.isBlank()).toList();
  }
}
