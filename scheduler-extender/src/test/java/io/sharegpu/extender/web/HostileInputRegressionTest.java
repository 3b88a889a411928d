package io.sharegpu.extender.web;

import static io.sharegpu.extender.Fixtures.addNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.debug.DebugController;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.testcluster.fuzz.HostileJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * One case per kind of input that used to answer 500 or name Java and fabric8 types (found by
 * {@code ExtenderFuzzTest} on the code before the fix): each now gets a 4xx with a generic {@code
 * Error}, and the ledger is untouched.
 */
class HostileInputRegressionTest {

  private static final String POD_HEAD =
      "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u-1\"},\"spec\":{";
  private static final String GPU_CONTAINER =
      "{\"name\":\"main\",\"resources\":{\"limits\":{\"sharegpu.io/gpu-milli\":\"250\"}}}";

  private final List<String> binds = new ArrayList<>();
  private final KubernetesClient client = Mockito.mock(KubernetesClient.class);
  private ClusterFixture view;
  private MockMvc mvc;

  @BeforeEach
  void setUp() {
    view = Fixtures.view("binpack");
    addNode(view, "h100", "NVIDIA H100 80GB HBM3", 8, 81559);
    ExtenderHandler handler =
        view.handler(
            (ns, name, uid, node) -> {
              binds.add(ns + "/" + name + "/" + uid);
              return BindOutcome.bound(null);
            },
            new PodEvents(null),
            ExtenderMetrics.inMemory());
    mvc =
        MockMvcBuilders.standaloneSetup(
                new DebugController(view.state(), client, Mockito.mock(Preemption.class)))
            .addFilters(
                new RequestBodyLimitFilter(1024 * 1024),
                new ExtenderVerbs(handler, new WireCodec(), ExtenderMetrics.inMemory()))
            .build();
  }

  private static String filterBody(String spec) {
    return "{\"Pod\":" + POD_HEAD + spec + "}},\"NodeNames\":[\"h100\"]}";
  }

  private MockHttpServletResponse send(MockHttpServletRequestBuilder request) throws Exception {
    List<Allocation> before = view.withLedger(l -> List.copyOf(l.allocations()));
    MockHttpServletResponse r = mvc.perform(request).andReturn().getResponse();
    List<Allocation> after = view.withLedger(l -> List.copyOf(l.allocations()));
    assertThat(after).isEqualTo(before);
    return r;
  }

  private MockHttpServletResponse post400(String path, String body) throws Exception {
    MockHttpServletResponse r = send(post(path).contentType("application/json").content(body));
    assertGenericError(r, 400, body.getBytes(StandardCharsets.UTF_8));
    return r;
  }

  private static void assertGenericError(MockHttpServletResponse r, int status, byte[] request)
      throws Exception {
    String answer = r.getContentAsString(StandardCharsets.UTF_8);
    assertThat(r.getStatus()).as(answer).isEqualTo(status);
    assertThat(answer).startsWith("{\"Error\":\"");
    assertThat(HostileJson.leakedInternal(answer, request)).as(answer).isNull();
  }

  @Test
  void nullContainerIs400() throws Exception {
    String answer =
        post400("/filter", filterBody("\"containers\":[null," + GPU_CONTAINER + "]"))
            .getContentAsString();
    assertThat(answer).contains("Pod.spec.containers[0] is null");
  }

  @Test
  void nullInitContainerIs400() throws Exception {
    post400(
        "/prioritize",
        filterBody("\"initContainers\":[null],\"containers\":[" + GPU_CONTAINER + "]"));
  }

  @Test
  void resourceWithoutQuantityIs400() throws Exception {
    post400(
        "/filter",
        filterBody(
            "\"containers\":[{\"name\":\"m\",\"resources\":{\"limits\":"
                + "{\"sharegpu.io/gpu-milli\":null}}}]"));
  }

  @Test
  void nullNodeNameIs400() throws Exception {
    post400(
        "/filter",
        "{\"Pod\":" + POD_HEAD + "\"containers\":[" + GPU_CONTAINER + "]}},\"NodeNames\":[null]}");
  }

  @Test
  void nodeItemWithoutMetadataIs400() throws Exception {
    String pod = "{\"Pod\":" + POD_HEAD + "\"containers\":[" + GPU_CONTAINER + "]}},";
    post400("/filter", pod + "\"Nodes\":{\"items\":[{\"status\":{}}]}}");
    post400("/filter", pod + "\"Nodes\":{\"items\":[null]}}");
  }

  @Test
  void wrongTypedContainersListIs400WithoutTypeNames() throws Exception {
    String answer = post400("/filter", filterBody("\"containers\":\"main\"")).getContentAsString();
    assertThat(answer).contains("wrong type or value at Pod.spec.containers");
  }

  @Test
  void wrongTypedBindFieldsAre400WithoutTypeNames() throws Exception {
    post400("/bind", "{\"PodName\":{\"a\":1},\"PodNamespace\":\"ns\",\"Node\":[1]}");
  }

  @Test
  void jsonLimitsAre400WithoutTheParsersMessage() throws Exception {
    post400("/filter", "[".repeat(5000));
    post400("/filter", "{\"Pod\":{\"metadata\":{\"" + "k".repeat(60_000) + "\":1}}}");
    post400("/filter", "{\"Pod\":{\"spec\":{\"priority\":" + "9".repeat(2000) + "}}}");
  }

  @Test
  void preemptVictimsWithoutUidOrMetadataAre400() throws Exception {
    String pod = "{\"Pod\":" + POD_HEAD + "\"containers\":[" + GPU_CONTAINER + "]}},";
    post400("/preempt", pod + "\"NodeNameToMetaVictims\":{\"h100\":{\"Pods\":[{}]}}}");
    post400("/preempt", pod + "\"NodeNameToMetaVictims\":{\"h100\":{\"Pods\":[null]}}}");
    post400("/preempt", pod + "\"NodeNameToVictims\":{\"h100\":{\"Pods\":[{\"spec\":{}}]}}}");
  }

  @Test
  void overLongNamesAre400() throws Exception {
    String answer =
        post400(
                "/filter",
                "{\"Pod\":"
                    + POD_HEAD
                    + "\"containers\":["
                    + GPU_CONTAINER
                    + "]}},\"NodeNames\":[\""
                    + "n".repeat(300)
                    + "\"]}")
            .getContentAsString();
    assertThat(answer).contains("NodeNames[0] is longer than 253");
  }

  @Test
  void bodiesThatAreNotUtf8Are400() throws Exception {
    byte[] latin1 =
        filterBody("\"containers\":[]")
            .replace("\"p\"", "\"p\u00e9\"")
            .getBytes(StandardCharsets.ISO_8859_1);
    MockHttpServletResponse r =
        send(post("/filter").contentType("application/json").content(latin1));
    assertGenericError(r, 400, latin1);
    byte[] utf16 = filterBody("\"containers\":[]").getBytes(StandardCharsets.UTF_16);
    r = send(post("/filter").contentType("application/json").content(utf16));
    assertGenericError(r, 400, utf16);
  }

  @Test
  void contentTypesOtherThanJsonAre415() throws Exception {
    byte[] body = filterBody("\"containers\":[]").getBytes(StandardCharsets.UTF_8);
    for (String type :
        List.of("text/plain", "a/b;;;==", "application/json; charset=utf-16", "*/*")) {
      MockHttpServletResponse r = send(post("/filter").header("Content-Type", type).content(body));
      assertGenericError(r, 415, body);
    }
  }

  @Test
  void bodiesOverTheLimitAre413() throws Exception {
    byte[] body =
        ("{\"Pod\":\"" + "x".repeat(1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
    MockHttpServletResponse r = send(post("/filter").contentType("application/json").content(body));
    assertGenericError(r, 413, body);
  }

  @Test
  void bindWithoutPodUidBindsNothing() throws Exception {
    // an empty UID used to match any pod of that name
    MockHttpServletResponse r =
        send(
            post("/bind")
                .contentType("application/json")
                .content(
                    "{\"PodName\":\"p\",\"PodNamespace\":\"ns\",\"PodUID\":\"\",\"Node\":\"h100\"}"));
    assertThat(r.getStatus()).isEqualTo(200);
    assertThat(r.getContentAsString()).contains("PodUID");
    assertThat(binds).isEmpty();
  }

  @Test
  void bindWithNamesNoPodCanHaveNeverReachesTheBinder() throws Exception {
    for (String name : List.of("../../etc", "a/b", "P", "x".repeat(300), "p\u0000")) {
      String body =
          "{\"PodName\":\""
              + name.replace("\u0000", "\\u0000")
              + "\",\"PodNamespace\":\"ns\",\"PodUID\":\"u-1\",\"Node\":\"h100\"}";
      MockHttpServletResponse r = send(post("/bind").contentType("application/json").content(body));
      assertThat(r.getContentAsString()).contains("invalid PodName");
    }
    assertThat(binds).isEmpty();
  }

  @Test
  void debugPathsWithOddNamesAre404WithoutCallingTheApiServer() throws Exception {
    for (String name : List.of("a/b", "..", "%00", "x".repeat(300), "UPPER", "\u202e")) {
      MockHttpServletResponse r = send(get("/debug/pods/{namespace}/{name}/explain", "ns", name));
      assertThat(r.getStatus()).as(name).isEqualTo(404);
      assertThat(r.getErrorMessage())
          .isIn("no such pod", "No endpoint GET /debug/pods/ns/a/b/explain.");
      r = send(get("/debug/nodes/{node}", name));
      assertThat(r.getStatus()).as(name).isEqualTo(404);
      assertThat(r.getErrorMessage()).isIn("no such node", "No endpoint GET /debug/nodes/a/b.");
    }
    Mockito.verifyNoInteractions(client);
  }
}
