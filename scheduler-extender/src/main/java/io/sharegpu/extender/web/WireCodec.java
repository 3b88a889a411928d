package io.sharegpu.extender.web;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads and writes kube-scheduler's extender wire types with fabric8's serialization, so embedded
 * Pods and Nodes (quantities, int-or-string, unknown fields) decode exactly as fabric8 decodes them
 * everywhere else.
 *
 * <p>The hot path, filter and prioritize with {@code NodeNames}, has its own streaming reader and
 * writer ({@link #readArgs}, {@link #writeFilterResult}, {@link #writePriorities}): the reader
 * keeps only what the extender uses (the pod's name, namespace, uid, resourceVersion and
 * annotations, and its containers' names and resources) and skips the rest of the Pod (env, probes,
 * volumes, status, ...) without building it. Anything it does not expect falls back to the full
 * fabric8 decoding, so answers and error messages stay the same.
 */
public final class WireCodec {

  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final JsonFactory json = new JsonFactory();

  /**
   * Decodes {@code json} as {@code type}.
   *
   * @throws MalformedRequestException if the body is not valid JSON of that shape
   */
  public <T> T read(byte[] json, Class<T> type) {
    if (!Utf8.isValid(json)) {
      throw new MalformedRequestException("request body is not UTF-8");
    }
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
      throw new MalformedRequestException(WireErrors.describe(e));
    }
    if (value == null) {
      throw new MalformedRequestException("request body is JSON null");
    }
    return value;
  }

  /**
   * Decodes and checks a preempt body.
   *
   * @throws MalformedRequestException if it is not valid JSON of that shape ({@link WireChecks})
   */
  public ExtenderPreemptionArgs readPreemptionArgs(byte[] body) {
    ExtenderPreemptionArgs args = read(body, ExtenderPreemptionArgs.class);
    WireChecks.check(args);
    return args;
  }

  /**
   * Decodes a bind body.
   *
   * @throws MalformedRequestException if it is not valid JSON of that shape
   */
  public ExtenderBindingArgs readBindingArgs(byte[] body) {
    return read(body, ExtenderBindingArgs.class);
  }

  /**
   * Decodes and checks a filter or prioritize body ({@link #readArgs} then {@link WireChecks}).
   *
   * @throws MalformedRequestException if it is not valid JSON of that shape
   */
  public ExtenderArgs readCheckedArgs(byte[] body) {
    ExtenderArgs args = readArgs(body);
    WireChecks.check(args);
    return args;
  }

  /**
   * Decodes an {@code ExtenderArgs} body (filter, prioritize) keeping only the fields the extender
   * reads: a Pod with metadata name, namespace, uid, resourceVersion and annotations, and spec
   * containers and initContainers with name and resources. A body with {@code Nodes} objects, or
   * one the streaming reader does not understand, is decoded in full by {@link #read}.
   *
   * @throws MalformedRequestException if the body is not valid JSON of that shape
   */
  public ExtenderArgs readArgs(byte[] body) {
    if (!Utf8.isValid(body)) {
      throw new MalformedRequestException("request body is not UTF-8");
    }
    try (JsonParser p = json.createParser(ObjectReadContext.empty(), body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return read(body, ExtenderArgs.class);
      }
      Pod pod = null;
      List<String> names = null;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.PROPERTY_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if ("Pod".equals(field)) {
          pod = value == JsonToken.VALUE_NULL ? null : readPod(p);
        } else if ("NodeNames".equals(field)) {
          names = value == JsonToken.VALUE_NULL ? null : readStrings(p);
        } else if ("Nodes".equals(field) && value != JsonToken.VALUE_NULL) {
          return read(body, ExtenderArgs.class); // nodeCacheCapable: false, rare: decode in full
        } else {
          p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        return read(body, ExtenderArgs.class);
      }
      return new ExtenderArgs(pod, null, names);
    } catch (JacksonException | UnexpectedShape | IllegalArgumentException e) {
      return read(body, ExtenderArgs.class); // throws the full decoder's message, or decodes
    }
  }

  /**
   * Encodes a filter answer as {@link #write} does (null members left out); {@code NodeNames}
   * answers are written without reflection.
   */
  public String writeFilterResult(ExtenderFilterResult r) {
    if (r.nodes() != null) {
      return write(r);
    }
    StringWriter out = new StringWriter(64 + 24 * size(r.nodeNames()));
    try (JsonGenerator g = json.createGenerator(ObjectWriteContext.empty(), out)) {
      g.writeStartObject();
      if (r.nodeNames() != null) {
        g.writeName("NodeNames");
        g.writeStartArray();
        for (String n : r.nodeNames()) {
          g.writeString(n);
        }
        g.writeEndArray();
      }
      writeMap(g, "FailedNodes", r.failedNodes());
      writeMap(g, "FailedAndUnresolvableNodes", r.failedAndUnresolvableNodes());
      if (r.error() != null) {
        g.writeStringProperty("Error", r.error());
      }
      g.writeEndObject();
    }
    return out.toString();
  }

  /** Encodes a prioritize answer: a JSON array of {@code {"Host": ..., "Score": ...}}. */
  public String writePriorities(List<HostPriority> priorities) {
    StringWriter out = new StringWriter(16 + 40 * priorities.size());
    try (JsonGenerator g = json.createGenerator(ObjectWriteContext.empty(), out)) {
      g.writeStartArray();
      for (HostPriority h : priorities) {
        g.writeStartObject();
        g.writeStringProperty("Host", h.host());
        g.writeNumberProperty("Score", h.score());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    return out.toString();
  }

  private static void writeMap(JsonGenerator g, String name, @Nullable Map<String, String> map) {
    if (map == null) {
      return; // null members are left out, as fabric8's serialization does
    }
    g.writeName(name);
    g.writeStartObject();
    for (Map.Entry<String, String> e : map.entrySet()) {
      g.writeStringProperty(e.getKey(), e.getValue());
    }
    g.writeEndObject();
  }

  private static int size(@Nullable List<?> list) {
    return list == null ? 0 : list.size();
  }

  private static Pod readPod(JsonParser p) {
    expect(p, JsonToken.START_OBJECT);
    Pod pod = new Pod();
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      if ("metadata".equals(field)) {
        pod.setMetadata(readMetadata(p));
      } else if ("spec".equals(field)) {
        pod.setSpec(readSpec(p));
      } else if ("apiVersion".equals(field) || "kind".equals(field)) {
        expectScalar(p);
      } else {
        p.skipChildren();
      }
    }
    return pod;
  }

  private static ObjectMeta readMetadata(JsonParser p) {
    expect(p, JsonToken.START_OBJECT);
    ObjectMeta meta = new ObjectMeta();
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      switch (field) {
        case "name" -> meta.setName(string(p));
        case "namespace" -> meta.setNamespace(string(p));
        case "uid" -> meta.setUid(string(p));
        case "resourceVersion" -> meta.setResourceVersion(string(p));
        case "annotations" -> meta.setAnnotations(readStringMap(p));
        default -> p.skipChildren();
      }
    }
    return meta;
  }

  private static PodSpec readSpec(JsonParser p) {
    expect(p, JsonToken.START_OBJECT);
    PodSpec spec = new PodSpec();
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      if ("containers".equals(field)) {
        spec.setContainers(readContainers(p));
      } else if ("initContainers".equals(field)) {
        spec.setInitContainers(readContainers(p));
      } else {
        p.skipChildren();
      }
    }
    return spec;
  }

  private static List<Container> readContainers(JsonParser p) {
    expect(p, JsonToken.START_ARRAY);
    List<Container> out = new ArrayList<>();
    while (p.nextToken() == JsonToken.START_OBJECT) {
      Container c = new Container();
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (value == JsonToken.VALUE_NULL) {
          continue;
        }
        if ("name".equals(field)) {
          c.setName(string(p));
        } else if ("resources".equals(field)) {
          c.setResources(readResources(p));
        } else {
          p.skipChildren();
        }
      }
      out.add(c);
    }
    expect(p, JsonToken.END_ARRAY);
    return out;
  }

  private static ResourceRequirements readResources(JsonParser p) {
    expect(p, JsonToken.START_OBJECT);
    ResourceRequirements r = new ResourceRequirements();
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      if ("limits".equals(field)) {
        r.setLimits(readQuantities(p));
      } else if ("requests".equals(field)) {
        r.setRequests(readQuantities(p));
      } else {
        p.skipChildren();
      }
    }
    return r;
  }

  private static Map<String, Quantity> readQuantities(JsonParser p) {
    expect(p, JsonToken.START_OBJECT);
    Map<String, Quantity> out = new LinkedHashMap<>();
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (value == JsonToken.VALUE_STRING
          || value == JsonToken.VALUE_NUMBER_INT
          || value == JsonToken.VALUE_NUMBER_FLOAT) {
        out.put(name, new Quantity(p.getString()));
      } else {
        throw new UnexpectedShape(); // {amount, format} objects and the like: decode in full
      }
    }
    return out;
  }

  private static Map<String, String> readStringMap(JsonParser p) {
    expect(p, JsonToken.START_OBJECT);
    Map<String, String> out = new HashMap<>();
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (value != JsonToken.VALUE_NULL) {
        out.put(name, string(p));
      }
    }
    return out;
  }

  private static List<String> readStrings(JsonParser p) {
    expect(p, JsonToken.START_ARRAY);
    List<String> out = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.VALUE_STRING) {
      out.add(p.getString());
    }
    if (t != JsonToken.END_ARRAY) {
      throw new UnexpectedShape();
    }
    return out;
  }

  private static String string(JsonParser p) {
    if (p.currentToken() != JsonToken.VALUE_STRING) {
      throw new UnexpectedShape();
    }
    return p.getString();
  }

  private static void expectScalar(JsonParser p) {
    if (p.currentToken().isStructStart()) {
      throw new UnexpectedShape();
    }
  }

  private static void expect(JsonParser p, JsonToken token) {
    if (p.currentToken() != token) {
      throw new UnexpectedShape();
    }
  }

  /** A body the streaming reader does not handle; the full decoder decides. */
  private static final class UnexpectedShape extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnexpectedShape() {
      super(null, null, false, false);
    }
  }

  /** Encodes {@code value} as JSON. */
  public String write(Object value) {
    return serialization.asJson(value);
  }
}
