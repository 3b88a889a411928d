package io.sharegpu.extender.web;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;

/**
 * Reads and writes kube-scheduler's extender wire types with fabric8's serialization, so embedded
 * Pods and Nodes (quantities, int-or-string, unknown fields) decode exactly as fabric8 decodes them
 * everywhere else.
 */
public final class WireCodec {

  private final KubernetesSerialization serialization = new KubernetesSerialization();

  /**
   * Decodes {@code json} as {@code type}.
   *
   * @throws MalformedRequestException if the body is not valid JSON of that shape
   */
  public <T> T read(byte[] json, Class<T> type) {
    String text = new String(json, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      throw new MalformedRequestException("empty request body");
    }
    if (!text.startsWith("{")) {
      throw new MalformedRequestException("request body must be a JSON object");
    }
    T value;
    try {
      value = serialization.unmarshal(text, type);
    } catch (RuntimeException e) {
      throw new MalformedRequestException("malformed JSON: " + firstLine(rootMessage(e)));
    }
    if (value == null) {
      throw new MalformedRequestException("request body is JSON null");
    }
    return value;
  }

  /** Encodes {@code value} as JSON. */
  public String write(Object value) {
    return serialization.asJson(value);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  private static String firstLine(String message) {
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
