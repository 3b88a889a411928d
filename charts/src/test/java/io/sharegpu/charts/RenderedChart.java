package io.sharegpu.charts;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.sharegpu.testcluster.TestCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The manifests of charts/sharegpu rendered by {@code helm template} (through helm-java) for one
 * value set, parsed into fabric8 objects.
 */
final class RenderedChart {

  static final String RELEASE = "sharegpu";
  static final String NAMESPACE = "sharegpu-system";
  static final String KUBE_VERSION = "v1.34.2";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private final String yaml;
  private final List<HasMetadata> objects;

  private RenderedChart(String yaml, List<HasMetadata> objects) {
    this.yaml = yaml;
    this.objects = List.copyOf(objects);
  }

  static Path chartDir() {
    return TestCluster.repoRoot().resolve("charts/sharegpu");
  }

  static Path valuesFile(String name) {
    return TestCluster.repoRoot().resolve("charts/src/test/resources/values").resolve(name);
  }

  /**
   * Renders the chart, CRDs left out, with the given values files (under src/test/resources/values)
   * and --set pairs.
   */
  static RenderedChart render(List<String> valuesFiles, Map<String, Object> sets) {
    return render(RELEASE, NAMESPACE, valuesFiles, sets);
  }

  static RenderedChart render(String... valuesFiles) {
    return render(Arrays.asList(valuesFiles), Map.of());
  }

  static RenderedChart render(
      String release, String namespace, List<String> valuesFiles, Map<String, Object> sets) {
    TemplateCommand template =
        new Helm(chartDir())
            .template()
            .withName(release)
            .withNamespace(namespace)
            .withKubeVersion(KUBE_VERSION)
            .skipCrds();
    for (String file : valuesFiles) {
      template = template.withValuesFile(valuesFile(file));
    }
    for (Map.Entry<String, Object> set : sets.entrySet()) {
      template = template.set(set.getKey(), set.getValue());
    }
    String yaml = template.call();
    return new RenderedChart(yaml, parse(yaml));
  }

  static List<HasMetadata> parse(String yaml) {
    List<HasMetadata> objects = new ArrayList<>();
    for (String document : yaml.split("(?m)^---\\s*$")) {
      boolean empty =
          document.lines().map(String::strip).allMatch(l -> l.isEmpty() || l.startsWith("#"));
      if (!empty) {
        objects.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
      }
    }
    return objects;
  }

  String yaml() {
    return yaml;
  }

  List<HasMetadata> objects() {
    return objects;
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
    return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst();
  }

  <T extends HasMetadata> T get(Class<T> type, String name) {
    return find(type, name)
        .orElseThrow(
            () ->
                new AssertionError(
                    "no " + type.getSimpleName() + " named " + name + " in " + names()));
  }

  Deployment deployment(String component) {
    return get(Deployment.class, RELEASE + "-" + component);
  }

  DaemonSet daemonSet(String component) {
    return get(DaemonSet.class, RELEASE + "-" + component);
  }

  /** kind/name of every object, in rendering order. */
  List<String> names() {
    return objects.stream()
        .map(o -> o.getKind() + "/" + o.getMetadata().getName())
        .collect(Collectors.toList());
  }

  static Map<String, Object> sets(Object... keysAndValues) {
    Map<String, Object> sets = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      sets.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return sets;
  }
}
