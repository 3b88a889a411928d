package io.sharegpu.extender.web;

import static io.sharegpu.extender.web.WireFormatTest.golden;
import static io.sharegpu.extender.web.WireFormatTest.normalize;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.request.PodGpuRequestParser;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The streaming reader and writers of the filter/prioritize hot path give what fabric8's full
 * decoding and the records' encoding give: the same pod fields and GPU request, the same answers
 * and the same error messages.
 */
class StreamingWireTest {

  private static final JsonMapper TREE = JsonMapper.builder().build();
  private final WireCodec codec = new WireCodec();

  private static final String FULL_POD =
      """
      {"metadata":{"name":"inference-0","generateName":"inference-","namespace":"ml","uid":"u-1",
        "resourceVersion":"4711","labels":{"app":"x"},
        "annotations":{"sharegpu.io/gpu-limit-milli":"500","sharegpu.io/gpu-models":"H100,A100"},
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"o",
          "controller":true}],
        "managedFields":[{"manager":"kubectl","operation":"Update","fieldsV1":{"f:spec":{}}}]},
       "spec":{"schedulerName":"sharegpu-scheduler",
        "initContainers":[{"name":"init","image":"busybox","resources":{}}],
        "containers":[
          {"name":"main","image":"img","env":[{"name":"A","value":"1"},
             {"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
           "ports":[{"containerPort":8000}],
           "resources":{"requests":{"cpu":"2","memory":"16Gi"},
             "limits":{"cpu":"4","sharegpu.io/gpu-milli":"250","sharegpu.io/gpu-memory":"20480"}},
           "livenessProbe":{"httpGet":{"path":"/h","port":8000}},"volumeMounts":[{"name":"v","mountPath":"/v"}]},
          {"name":"side","image":"img2","resources":{"limits":{"sharegpu.io/gpu-milli":1000}}}],
        "volumes":[{"name":"v","emptyDir":{}}],
        "tolerations":[{"key":"k","operator":"Exists"}],
        "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
          {"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"In","values":["b"]}]}]}}}},
       "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
         "lastProbeTime":null}],"qosClass":"Burstable"}}
      """;

  private static byte[] args(String pod, String names) {
    return ("{\"Pod\":" + pod + ",\"Nodes\":null,\"NodeNames\":" + names + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  static Stream<byte[]> bodies() {
    return Stream.of(
        golden("filter-args-node-names.json"),
        args(FULL_POD, "[\"n1\",\"n2\"]"),
        args(FULL_POD, "[]"),
        args(FULL_POD, "null"),
        args("null", "[\"n1\"]"),
        // quantities as {amount, format} objects and as numbers
        args(
            "{\"metadata\":{\"name\":\"q\",\"uid\":\"u\"},\"spec\":{\"containers\":[{\"name\":\"m\","
                + "\"resources\":{\"limits\":{\"sharegpu.io/gpu-milli\":{\"amount\":\"300\"}}}}]}}",
            "[\"n1\"]"),
        args(
            "{\"metadata\":{\"name\":\"q\",\"uid\":\"u\",\"annotations\":{\"a\":null}},"
                + "\"spec\":{\"containers\":[{\"name\":\"m\",\"resources\":{\"limits\":"
                + "{\"sharegpu.io/gpu-milli\":250.0}}}]}}",
            "[\"n1\"]"),
        // an invalid request is decoded, the parser reports it
        args(
            "{\"metadata\":{\"name\":\"q\",\"uid\":\"u\"},\"spec\":{\"containers\":[{\"name\":\"m\","
                + "\"resources\":{\"limits\":{\"sharegpu.io/gpu-milli\":\"0\"}}}]}}",
            "[\"n1\"]"),
        "{\"NodeNames\":[\"a\"],\"Unknown\":{\"x\":[1,2,{\"y\":null}]}}"
            .getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @MethodSource("bodies")
  void streamingReaderKeepsWhatTheFullDecoderGives(byte[] body) {
    ExtenderArgs full = codec.read(body, ExtenderArgs.class);
    ExtenderArgs fast = codec.readArgs(body);
    assertThat(fast.nodeNames()).isEqualTo(full.nodeNames());
    assertThat(fast.sentNodeObjects()).isEqualTo(full.sentNodeObjects());
    if (full.pod() == null) {
      assertThat(fast.pod()).isNull();
      return;
    }
    Pod f = full.pod();
    Pod s = fast.pod();
    assertThat(s.getMetadata().getName()).isEqualTo(f.getMetadata().getName());
    assertThat(s.getMetadata().getNamespace()).isEqualTo(f.getMetadata().getNamespace());
    assertThat(s.getMetadata().getUid()).isEqualTo(f.getMetadata().getUid());
    assertThat(s.getMetadata().getResourceVersion())
        .isEqualTo(f.getMetadata().getResourceVersion());
    assertThat(withoutNulls(s.getMetadata().getAnnotations()))
        .isEqualTo(withoutNulls(f.getMetadata().getAnnotations()));
    assertThat(names(s.getSpec().getContainers())).isEqualTo(names(f.getSpec().getContainers()));
    assertThat(names(s.getSpec().getInitContainers()))
        .isEqualTo(names(f.getSpec().getInitContainers()));
    for (int i = 0; i < f.getSpec().getContainers().size(); i++) {
      assertThat(s.getSpec().getContainers().get(i).getResources())
          .isEqualTo(f.getSpec().getContainers().get(i).getResources());
    }
    assertThat(PodGpuRequestParser.parse(s)).isEqualTo(PodGpuRequestParser.parse(f));
  }

  @Test
  void readsTheFullPodsGpuRequest() {
    ExtenderArgs a = codec.readArgs(args(FULL_POD, "[\"n1\",\"n2\"]"));
    assertThat(a.nodeNames()).containsExactly("n1", "n2");
    assertThat(a.pod().getMetadata().getResourceVersion()).isEqualTo("4711");
    assertThat(PodGpuRequestParser.parse(a.pod()).toString()).contains("main", "250", "side");
  }

  @Test
  void nodeObjectsAreDecodedInFull() {
    ExtenderArgs a = codec.readArgs(golden("filter-args-nodes.json"));
    assertThat(a.sentNodeObjects()).isTrue();
    assertThat(a.candidateNames()).isNotEmpty();
    assertThat(a.candidateNames())
        .isEqualTo(
            codec.read(golden("filter-args-nodes.json"), ExtenderArgs.class).candidateNames());
  }

  @Test
  void malformedBodiesGetTheFullDecodersMessages() {
    for (String body :
        List.of(
            "{\"Pod\": ",
            "",
            "   ",
            "[1]",
            "null",
            "{\"NodeNames\": 5}",
            "{\"NodeNames\": [\"a\", 5]}",
            "{\"Pod\": \"text\"}",
            "{\"Pod\": {\"spec\": {\"containers\": [{\"resources\": {\"limits\": {\"x\": \"1z\"}}}]}}}",
            "{\"NodeNames\": [\"a\"]} trailing")) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      Throwable fullError = catchThrowable(() -> codec.read(bytes, ExtenderArgs.class));
      Throwable fastError = catchThrowable(() -> codec.readArgs(bytes));
      if (fullError == null) {
        assertThat(fastError).as(body).isNull();
      } else {
        assertThat(fastError).as(body).isInstanceOf(MalformedRequestException.class);
        assertThat(fastError.getMessage()).as(body).isEqualTo(fullError.getMessage());
      }
    }
    assertThatThrownBy(() -> codec.readArgs(new byte[0]))
        .isInstanceOf(MalformedRequestException.class)
        .hasMessage("empty request body");
  }

  @Test
  void filterAnswersEncodeAsTheRecordsDo() {
    Map<String, String> failed = new LinkedHashMap<>();
    failed.put("gpu-a100-0", "no GPU matches the allowed models [h100] \"quoted\" \u00e9");
    for (ExtenderFilterResult r :
        List.of(
            new ExtenderFilterResult(
                null, List.of("gpu-h100-0"), failed, Map.of("cpu-0", "no GPUNode"), ""),
            new ExtenderFilterResult(null, List.of(), Map.of(), Map.of(), ""),
            ExtenderFilterResult.error("invalid GPU request: x"))) {
      assertThat(TREE.readTree(codec.writeFilterResult(r)))
          .isEqualTo(TREE.readTree(codec.write(r)));
    }
    assertThat(
            normalize(
                TREE.readTree(
                    codec.writeFilterResult(
                        new ExtenderFilterResult(
                            null,
                            List.of("gpu-h100-0"),
                            Map.of("gpu-a100-0", "no GPU matches the allowed models [h100]"),
                            Map.of("cpu-0", "no GPUNode named cpu-0"),
                            "")))))
        .isEqualTo(normalize(TREE.readTree(golden("filter-result-node-names.json"))));
  }

  @Test
  void prioritizeAnswersEncodeAsTheRecordsDo() {
    List<HostPriority> list =
        List.of(new HostPriority("gpu-h100-0", 10), new HostPriority("gpu-a100-0", 3));
    assertThat(TREE.readTree(codec.writePriorities(list)))
        .isEqualTo(TREE.readTree(golden("prioritize-result.json")));
    assertThat(codec.writePriorities(List.of())).isEqualTo("[]");
  }

  private static Throwable catchThrowable(Runnable r) {
    try {
      r.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  private static List<String> names(List<Container> containers) {
    return containers == null ? List.of() : containers.stream().map(Container::getName).toList();
  }

  private static Map<String, String> withoutNulls(Map<String, String> m) {
    Map<String, String> out = new LinkedHashMap<>();
    if (m != null) {
      m.forEach(
          (k, v) -> {
            if (v != null) {
              out.put(k, v);
            }
          });
    }
    return out;
  }
}
