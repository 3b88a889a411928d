package io.sharegpu.kubectl.render;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** JSON (indented) and YAML forms of the reports for {@code -o json} and {@code -o yaml}. */
public final class Structured {

  private static final JsonMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private Structured() {}

  public static String json(Object value) {
    return JSON.writeValueAsString(value) + "\n";
  }

  public static String yaml(Object value) {
    return new KubernetesSerialization().asYaml(value);
  }
}
