package io.sharegpu.extender.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Golden JSON for every extender wire type, decoded and encoded. */
class WireFormatTest {

  private final WireCodec codec = new WireCodec();
  private static final JsonMapper TREE = JsonMapper.builder().build();

  static byte[] golden(String name) {
    try (InputStream in = WireFormatTest.class.getResourceAsStream("/golden/" + name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Drops null members and empty objects so absent and null compare equal, as Go decodes them. */
  static JsonNode normalize(JsonNode n) {
    if (n.isObject()) {
      ObjectNode out = TREE.createObjectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = n.properties().iterator(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode v = normalize(e.getValue());
        if (!v.isNull() && !(v.isObject() && v.isEmpty())) {
          out.set(e.getKey(), v);
        }
      }
      return out;
    }
    if (n.isArray()) {
      var arr = TREE.createArrayNode();
      n.forEach(x -> arr.add(normalize(x)));
      return arr;
    }
    return n;
  }

  private void assertEncodesTo(Object value, String goldenName) {
    JsonNode actual = normalize(TREE.readTree(codec.write(value)));
    JsonNode expected =
        normalize(TREE.readTree(new String(golden(goldenName), StandardCharsets.UTF_8)));
    assertThat(actual).as(goldenName).isEqualTo(expected);
  }

  @Test
  void filterArgsWithNodeNamesDecode() {
    ExtenderArgs args = codec.read(golden("filter-args-node-names.json"), ExtenderArgs.class);
    assertThat(args.nodes()).isNull();
    assertThat(args.nodeNames()).containsExactly("gpu-h100-0", "gpu-a100-0");
    assertThat(args.sentNodeObjects()).isFalse();
    assertThat(args.pod().getMetadata().getUid()).isEqualTo("0d3e5a4c-1111-4c2b-9a55-5a0d7f3e0001");
    assertThat(args.pod().getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("sharegpu.io/gpu-milli", new Quantity("250"));
    assertEncodesTo(args, "filter-args-node-names.json");
  }

  @Test
  void filterArgsWithNodeObjectsDecode() {
    ExtenderArgs args = codec.read(golden("filter-args-nodes.json"), ExtenderArgs.class);
    assertThat(args.nodeNames()).isNull();
    assertThat(args.sentNodeObjects()).isTrue();
    assertThat(args.candidateNames()).containsExactly("gpu-h100-0");
    assertThat(
            args.nodes()
                .getItems()
                .get(0)
                .getStatus()
                .getDaemonEndpoints()
                .getKubeletEndpoint()
                .getPort())
        .isEqualTo(10250);
    assertEncodesTo(args, "filter-args-nodes.json");
  }

  @Test
  void filterResultWithNodeNamesEncodes() {
    Map<String, String> failed = new LinkedHashMap<>();
    failed.put("gpu-a100-0", "no GPU matches the allowed models [h100]");
    ExtenderFilterResult r =
        new ExtenderFilterResult(
            null, List.of("gpu-h100-0"), failed, Map.of("cpu-0", "no GPUNode named cpu-0"), "");
    assertEncodesTo(r, "filter-result-node-names.json");
    assertThat(codec.read(golden("filter-result-node-names.json"), ExtenderFilterResult.class))
        .isEqualTo(r);
  }

  @Test
  void filterResultWithNodeObjectsEncodes() {
    ExtenderFilterResult r =
        new ExtenderFilterResult(
            new NodeListBuilder()
                .withItems(
                    new NodeBuilder()
                        .withNewMetadata()
                        .withName("gpu-h100-0")
                        .endMetadata()
                        .withNewStatus()
                        .withNewDaemonEndpoints()
                        .withNewKubeletEndpoint(10250)
                        .endDaemonEndpoints()
                        .endStatus()
                        .build())
                .build(),
            null,
            Map.of(),
            Map.of(),
            "");
    assertEncodesTo(r, "filter-result-nodes.json");
    ExtenderFilterResult back =
        codec.read(golden("filter-result-nodes.json"), ExtenderFilterResult.class);
    assertThat(back.nodes().getItems()).hasSize(1);
    assertThat(back.nodeNames()).isNull();
  }

  @Test
  void filterErrorEncodes() {
    ExtenderFilterResult r =
        ExtenderFilterResult.error(
            "invalid GPU request: container main: sharegpu.io/gpu-milli must be > 0, got 0");
    assertEncodesTo(r, "filter-result-error.json");
    assertThat(codec.read(golden("filter-result-error.json"), ExtenderFilterResult.class))
        .isEqualTo(r);
  }

  @Test
  void prioritizeResultIsATopLevelArray() {
    List<HostPriority> list =
        List.of(new HostPriority("gpu-h100-0", 10), new HostPriority("gpu-a100-0", 3));
    assertEncodesTo(list, "prioritize-result.json");
    JsonNode tree = TREE.readTree(golden("prioritize-result.json"));
    assertThat(tree.isArray()).isTrue();
    List<HostPriority> back =
        List.of(
            codec.read(tree.get(0).toString().getBytes(StandardCharsets.UTF_8), HostPriority.class),
            codec.read(
                tree.get(1).toString().getBytes(StandardCharsets.UTF_8), HostPriority.class));
    assertThat(back).isEqualTo(list);
  }

  @Test
  void bindingArgsDecodeAndEncode() {
    ExtenderBindingArgs a = codec.read(golden("binding-args.json"), ExtenderBindingArgs.class);
    assertThat(a)
        .isEqualTo(
            new ExtenderBindingArgs(
                "notebook", "team-a", "0d3e5a4c-1111-4c2b-9a55-5a0d7f3e0001", "gpu-h100-0"));
    assertEncodesTo(a, "binding-args.json");
  }

  @Test
  void bindingResultsEncode() {
    assertEncodesTo(ExtenderBindingResult.OK, "binding-result-ok.json");
    ExtenderBindingResult err =
        new ExtenderBindingResult("GPUs on gpu-h100-0 no longer fit: no GPU has 250m compute free");
    assertEncodesTo(err, "binding-result-error.json");
    assertThat(codec.read(golden("binding-result-error.json"), ExtenderBindingResult.class))
        .isEqualTo(err);
    assertThat(codec.read(golden("binding-result-ok.json"), ExtenderBindingResult.class).ok())
        .isTrue();
  }

  @Test
  void preemptionTypesRoundTrip() {
    ExtenderPreemptionArgs a =
        codec.read(golden("preemption-args.json"), ExtenderPreemptionArgs.class);
    assertThat(a.nodeNameToMetaVictims().get("gpu-h100-0").pods())
        .containsExactly(new ExtenderPreemptionArgs.MetaPod("u-victim"));
    assertThat(a.nodeNameToMetaVictims().get("gpu-h100-0").numPdbViolations()).isEqualTo(1);
    assertEncodesTo(a, "preemption-args.json");
    ExtenderPreemptionResult r =
        new ExtenderPreemptionResult(
            Map.of(
                "gpu-h100-0",
                new ExtenderPreemptionArgs.MetaVictims(
                    List.of(new ExtenderPreemptionArgs.MetaPod("u-victim")), 0)));
    assertEncodesTo(r, "preemption-result.json");
    assertThat(codec.read(golden("preemption-result.json"), ExtenderPreemptionResult.class))
        .isEqualTo(r);
  }

  @Test
  void malformedBodiesAreRejectedWithAMessage() {
    assertThatThrownBy(
            () -> codec.read("{\"Pod\": ".getBytes(StandardCharsets.UTF_8), ExtenderArgs.class))
        .isInstanceOf(MalformedRequestException.class)
        .hasMessageStartingWith("malformed JSON");
    assertThatThrownBy(() -> codec.read(new byte[0], ExtenderArgs.class))
        .isInstanceOf(MalformedRequestException.class)
        .hasMessage("empty request body");
    assertThatThrownBy(() -> codec.read("[1]".getBytes(StandardCharsets.UTF_8), ExtenderArgs.class))
        .isInstanceOf(MalformedRequestException.class);
    assertThatThrownBy(
            () ->
                codec.read(
                    "{\"NodeNames\": 5}".getBytes(StandardCharsets.UTF_8), ExtenderArgs.class))
        .isInstanceOf(MalformedRequestException.class);
  }
}
