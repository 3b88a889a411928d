package io.sharegpu.extender.fuzz;

import static io.sharegpu.extender.Fixtures.addNode;
import static io.sharegpu.testcluster.fuzz.Json.arr;
import static io.sharegpu.testcluster.fuzz.Json.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.bind.PodBinder;
import io.sharegpu.extender.debug.DebugController;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.preempt.DisruptionBudgets;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.extender.web.ExtenderHandler;
import io.sharegpu.extender.web.ExtenderVerbs;
import io.sharegpu.extender.web.WireCodec;
import io.sharegpu.testcluster.fuzz.FuzzRun;
import io.sharegpu.testcluster.fuzz.FuzzRun.Finding;
import io.sharegpu.testcluster.fuzz.HostileJson;
import io.sharegpu.testcluster.fuzz.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fuzzes the extender's HTTP endpoints in process (Spring MVC through MockMvc, with the real codec,
 * handler, binder against fabric8's CRUD mock API server, and debug controller) with hostile bodies
 * and paths. Invariants: no 5xx, no internal names in any answer, a rejection answers {@code
 * {"Error": ...}} and leaves the ledger as it was, and no bind succeeds unless the pod exists with
 * that UID. 10,000 inputs per target by default; see {@link FuzzRun} for longer runs.
 */
@EnableKubernetesMockClient(crud = true)
class ExtenderFuzzTest {

  static final int TRIES = 10_000;
  static KubernetesMockServer server;
  static KubernetesClient client;

  private final JsonMapper json = JsonMapper.builder().build();
  private final Map<String, String> podUids = new HashMap<>();
  private ClusterFixture view;
  private MockMvc mvc;

  @BeforeAll
  static void quietMockServer() {
    // the mock API server logs every request it answers: thousands of lines per run
    java.util.logging.Logger.getLogger("io.fabric8.mockwebserver.MockWebServer")
        .setLevel(java.util.logging.Level.WARNING);
  }

  @BeforeEach
  void setUp() {
    // reservations made by accepted inputs must not expire mid-run: an expiry during a rejected
    // request would look like a change made by it
    view = new ClusterFixture(null, PlacementPolicies.byName("binpack", 1), Duration.ofHours(1));
    view.markReady();
    addNode(view, "h100", "NVIDIA H100 80GB HBM3", 8, 81559);
    addNode(view, "t4", "Tesla T4", 2, 15360);
    ExtenderMetrics metrics = ExtenderMetrics.inMemory();
    PodEvents events = new PodEvents(null);
    for (int i = 0; i < 5; i++) {
      Pod p = client.resource(Fixtures.pod("ns", "p" + i, "", 250, 1024)).create();
      podUids.put("p" + i, p.getMetadata().getUid());
    }
    PodBinder binder = new PodBinder(client, view.feed(), view.state(), events, metrics);
    Preemption preemption =
        new Preemption(view.state(), view.feed(), DisruptionBudgets.none(), Clock.systemUTC());
    ExtenderHandler handler =
        new ExtenderHandler(view.state(), binder::bind, events, metrics, null, preemption);
    mvc =
        FuzzSupport.mvc(
            MockMvcBuilders.standaloneSetup(new DebugController(view.state(), client, preemption)),
            new ExtenderVerbs(handler, new WireCodec(), metrics));
  }

  @AfterEach
  void tearDown() {
    view.close();
    client.pods().inAnyNamespace().delete();
  }

  static Object pod(String name, String uid) {
    return obj(
        "apiVersion",
        "v1",
        "kind",
        "Pod",
        "metadata",
        obj(
            "name",
            name,
            "namespace",
            "ns",
            "uid",
            uid,
            "resourceVersion",
            "7",
            "labels",
            obj("app", "train"),
            "annotations",
            obj("sharegpu.io/gpu-limit-milli", "500", "sharegpu.io/gpu-models", "H100,T4")),
        "spec",
        obj(
            "schedulerName",
            "sharegpu-scheduler",
            "priority",
            0,
            "containers",
            arr(
                obj(
                    "name",
                    "main",
                    "image",
                    "busybox",
                    "resources",
                    obj(
                        "limits",
                        obj("sharegpu.io/gpu-milli", "250", "sharegpu.io/gpu-memory", "10240"),
                        "requests",
                        obj("sharegpu.io/gpu-milli", "250", "cpu", "1")))),
            "initContainers",
            arr(obj("name", "init", "image", "busybox"))),
        "status",
        obj("phase", "Pending"));
  }

  static Object node(String name) {
    return obj(
        "metadata",
        obj("name", name, "labels", obj("kubernetes.io/hostname", name)),
        "status",
        obj(
            "capacity",
            obj("sharegpu.io/gpu-milli", "8000"),
            "daemonEndpoints",
            obj("kubeletEndpoint", obj("Port", 10250))));
  }

  static Object args(HostileJson gen) {
    return gen.nextInt(4) == 0
        ? obj(
            "Pod",
            pod("p1", "uid-1"),
            "Nodes",
            obj("items", arr(node("h100"), node("t4"))),
            "NodeNames",
            null)
        : obj("Pod", pod("p1", "uid-1"), "Nodes", null, "NodeNames", arr("h100", "t4", "cpu"));
  }

  @Test
  void filterNeverAnswers5xxNorLeaksNorChangesTheLedgerWhenItRejects() {
    FuzzRun.Report report =
        FuzzRun.run("extender /filter", TRIES, gen -> verb("/filter", gen.next(args(gen)), gen));
    report.assertClean();
    assertServedSome(report);
  }

  @Test
  void prioritizeNeverAnswers5xxNorLeaksNorChangesTheLedgerWhenItRejects() {
    FuzzRun.Report report =
        FuzzRun.run(
            "extender /prioritize", TRIES, gen -> verb("/prioritize", gen.next(args(gen)), gen));
    report.assertClean();
    assertServedSome(report);
  }

  @Test
  void preemptNeverAnswers5xxNorLeaksNorChangesTheLedgerWhenItRejects() {
    FuzzRun.Report report =
        FuzzRun.run(
            "extender /preempt",
            TRIES,
            gen -> {
              Object victims =
                  obj("h100", obj("Pods", arr(obj("UID", "uid-v1"), obj("UID", "uid-v2"))));
              Object args =
                  gen.nextInt(3) == 0
                      ? obj(
                          "Pod",
                          pod("p1", "uid-1"),
                          "NodeNameToVictims",
                          obj("h100", obj("Pods", arr(pod("v1", "uid-v1")), "NumPDBViolations", 0)),
                          "NodeNameToMetaVictims",
                          null)
                      : obj("Pod", pod("p1", "uid-1"), "NodeNameToMetaVictims", victims);
              return verb("/preempt", gen.next(args), gen);
            });
    report.assertClean();
    assertServedSome(report);
  }

  @Test
  void bindNeverAnswers5xxNorBindsAPodThatDoesNotExistOrHasAnotherUid() {
    FuzzRun.Report report =
        FuzzRun.run(
            "extender /bind",
            TRIES,
            gen -> {
              String name = gen.nextInt(2) == 0 ? "p" + gen.nextInt(6) : gen.hostileName();
              String uid =
                  switch (gen.nextInt(4)) {
                    case 0 -> podUids.getOrDefault(name, "uid-x");
                    case 1 -> "";
                    case 2 -> gen.hostileName();
                    default -> "0b1e5e0c-0000-4000-8000-000000000000";
                  };
              Object args =
                  obj(
                      "PodName",
                      name,
                      "PodNamespace",
                      gen.nextInt(5) == 0 ? gen.hostileName() : "ns",
                      "PodUID",
                      uid,
                      "Node",
                      gen.nextInt(5) == 0 ? gen.hostileName() : gen.pick("h100", "t4"));
              byte[] body =
                  gen.nextInt(3) == 0
                      ? Json.write(args).getBytes(StandardCharsets.UTF_8)
                      : gen.next(args);
              Finding f = verb("/bind", body, gen);
              if (f != null) {
                return f;
              }
              return boundOnlyARealPod(body);
            });
    report.assertClean();
    // the generator does reach a real bind: some inputs name a real pod with its UID
    assertThat(served).as("binds that succeeded").isPositive();
  }

  @Test
  void debugEndpointsAnswer404ForUnknownOrOddNamesAndNever5xx() {
    FuzzRun.run(
            "extender /debug",
            TRIES,
            gen -> {
              String a = gen.nextInt(3) == 0 ? gen.pick("h100", "ns", "p1") : gen.hostileName();
              String b = gen.nextInt(3) == 0 ? gen.pick("p1", "p2") : gen.hostileName();
              MockHttpServletRequestBuilder request =
                  switch (gen.nextInt(3)) {
                    case 0 -> get("/debug/nodes/{node}", a);
                    case 1 -> get("/debug/gpus/{uuid}", a);
                    default -> get("/debug/pods/{namespace}/{name}/explain", a, b);
                  };
              MockHttpServletResponse r = FuzzSupport.perform(mvc, request);
              byte[] in = (a + " " + b).getBytes(StandardCharsets.UTF_8);
              if (r == null) {
                return FuzzSupport.lastUnhandled(in);
              }
              return FuzzSupport.checkAnswer(r, in, "debug");
            })
        .assertClean();
  }

  private List<Allocation> ledger() {
    return view.withLedger(l -> List.copyOf(l.allocations()));
  }

  private @Nullable Finding verb(String path, byte[] body, HostileJson gen) throws Exception {
    List<Allocation> before = ledger();
    MockHttpServletRequestBuilder request = post(path).content(body);
    String type = gen.contentType();
    if (type != null) {
      request.header("Content-Type", type);
    }
    MockHttpServletResponse r = FuzzSupport.perform(mvc, request);
    last = r;
    if (r == null) {
      return FuzzSupport.lastUnhandled(body);
    }
    Finding f = FuzzSupport.checkAnswer(r, body, path);
    if (f != null) {
      return f;
    }
    if (!rejected(r)) {
      served++;
    } else if (!before.equals(ledger())) {
      return new Finding(
          "ledger changed by a rejected request to " + path,
          before.size()
              + " allocations before, "
              + ledger().size()
              + " after: "
              + HostileJson.preview(body, 300));
    }
    return null;
  }

  private boolean rejected(MockHttpServletResponse r) throws Exception {
    if (r.getStatus() != 200) {
      return true;
    }
    JsonNode answer = json.readTree(r.getContentAsString(StandardCharsets.UTF_8));
    return answer.path("Error").isString() && !answer.path("Error").asString().isEmpty();
  }

  private @Nullable Finding boundOnlyARealPod(byte[] body) throws Exception {
    if (last == null || rejected(last)) {
      return null;
    }
    // the bind answered success: the request must name a real pod and its UID
    JsonNode args = json.readTree(body);
    String name = args.path("PodName").asString("");
    String uid = args.path("PodUID").asString("");
    String ns = args.path("PodNamespace").asString("");
    if (!(ns.equals("ns") && podUids.containsKey(name) && uid.equals(podUids.get(name)))) {
      return new Finding(
          "bound a pod that does not exist or has another UID", HostileJson.preview(body, 300));
    }
    return null;
  }

  private @Nullable MockHttpServletResponse last;
  private int served;

  /** Not every input is rejected: the fuzzer also reaches the handler's real work. */
  private void assertServedSome(FuzzRun.Report report) {
    assertThat(served).as("inputs answered without Error").isGreaterThan(report.tries() / 100);
  }
}
