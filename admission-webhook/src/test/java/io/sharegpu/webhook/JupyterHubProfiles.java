package io.sharegpu.webhook;

import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/**
 * The GPU profiles of {@code examples/jupyterhub/values.yaml}, read so that tests build pods from
 * exactly what kubespawner would get.
 */
record JupyterHubProfiles(Map<String, Profile> bySlug) {

  /** One profile's kubespawner_override, as far as ShareGPU cares. */
  record Profile(
      String slug,
      String schedulerName,
      Map<String, Quantity> extraResourceLimits,
      Map<String, String> extraAnnotations) {}

  static JupyterHubProfiles read(Path valuesYaml) throws IOException {
    Map<String, Object> values;
    try (Reader reader = Files.newBufferedReader(valuesYaml, StandardCharsets.UTF_8)) {
      values = new Yaml().load(reader);
    }
    Map<String, Profile> profiles = new LinkedHashMap<>();
    for (Object item : list(map(values.get("singleuser")).get("profileList"))) {
      Map<String, Object> profile = map(item);
      Map<String, Object> override = map(profile.get("kubespawner_override"));
      Map<String, Quantity> limits = new LinkedHashMap<>();
      map(override.get("extra_resource_limits"))
          .forEach((k, v) -> limits.put(k, new Quantity(String.valueOf(v))));
      Map<String, String> annotations = new LinkedHashMap<>();
      if (override.get("extra_annotations") != null) {
        map(override.get("extra_annotations"))
            .forEach((k, v) -> annotations.put(k, String.valueOf(v)));
      }
      String slug = String.valueOf(profile.get("slug"));
      profiles.put(
          slug,
          new Profile(slug, String.valueOf(override.get("scheduler_name")), limits, annotations));
    }
    return new JupyterHubProfiles(Map.copyOf(profiles));
  }

  Profile profile(String slug) {
    Profile profile = bySlug.get(slug);
    if (profile == null) {
      throw new IllegalArgumentException("no profile " + slug + " in " + bySlug.keySet());
    }
    return profile;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    if (!(o instanceof Map)) {
      throw new IllegalArgumentException("expected a mapping, got " + o);
    }
    return (Map<String, Object>) o;
  }

  private static List<?> list(Object o) {
    if (!(o instanceof List)) {
      throw new IllegalArgumentException("expected a list, got " + o);
    }
    return (List<?>) o;
  }
}
