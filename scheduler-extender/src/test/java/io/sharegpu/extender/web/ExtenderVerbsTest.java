package io.sharegpu.extender.web;

import static io.sharegpu.extender.Fixtures.addNode;
import static io.sharegpu.extender.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/** HTTP tests of the extender endpoints over a hand-fed cluster view. */
class ExtenderVerbsTest {

  private final WireCodec codec = new WireCodec();
  private final List<String> binds = new ArrayList<>();
  private ClusterFixture view;
  private MockMvc mvc;

  @BeforeEach
  void setUp() {
    view = Fixtures.view("binpack");
    addNode(view, "h100", "NVIDIA H100 80GB HBM3", 8, 81559);
    addNode(view, "t4", "Tesla T4", 2, 15360);
    ExtenderHandler handler =
        view.handler(
            (ns, name, uid, node) -> {
              binds.add(ns + "/" + name + "@" + node);
              return node.equals("t4")
                  ? BindOutcome.failed("no-fit", "GPUs on t4 no longer fit")
                  : BindOutcome.bound(null);
            },
            new PodEvents(null),
            ExtenderMetrics.inMemory());
    mvc =
        MockMvcBuilders.standaloneSetup(new Object())
            .addFilters(new ExtenderVerbs(handler, codec, ExtenderMetrics.inMemory()))
            .build();
  }

  private ResultActions call(String verb, Object body) throws Exception {
    return mvc.perform(
        post("/" + verb).contentType(MediaType.APPLICATION_JSON).content(codec.write(body)));
  }

  @Test
  void filterWithNodeNamesSplitsFeasibleFailedAndUnresolvable() throws Exception {
    Pod p = pod("ns", "big", "uid-big", 500, 40000);
    call("filter", new ExtenderArgs(p, null, List.of("h100", "t4", "cpu-only")))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.NodeNames[0]").value("h100"))
        .andExpect(jsonPath("$.NodeNames.length()").value(1))
        // 40,000 MiB is more than any T4 has: no eviction helps, so kube-scheduler must not preempt
        .andExpect(jsonPath("$.FailedAndUnresolvableNodes.t4").exists())
        .andExpect(jsonPath("$.FailedNodes.t4").doesNotExist())
        .andExpect(jsonPath("$.FailedAndUnresolvableNodes.cpu-only").exists())
        .andExpect(jsonPath("$.Error").value(""));
  }

  @Test
  void filterWithNodeObjectsAnswersNodeObjects() throws Exception {
    Pod p = pod("ns", "small", "uid-small", 250, 1024);
    call(
            "filter",
            new ExtenderArgs(
                p,
                new NodeListBuilder()
                    .withItems(Fixtures.node("h100", 8, 81559), Fixtures.node("t4", 2, 15360))
                    .build(),
                null))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.Nodes.items.length()").value(2))
        .andExpect(jsonPath("$.Nodes.items[0].metadata.name").value("h100"));
  }

  @Test
  void invalidRequestIsAFilterErrorWithTheParsersMessage() throws Exception {
    Pod p = pod("ns", "bad", "uid-bad", 1500, 0);
    call("filter", new ExtenderArgs(p, null, List.of("h100")))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.Error").value(org.hamcrest.Matchers.containsString("1000")))
        .andExpect(jsonPath("$.NodeNames").doesNotExist());
  }

  @Test
  void memoryLargerThanAnyGpuIsAFilterError() throws Exception {
    Pod p = pod("ns", "huge", "uid-huge", 500, 200000);
    call("filter", new ExtenderArgs(p, null, List.of("h100")))
        .andExpect(jsonPath("$.Error").value(org.hamcrest.Matchers.containsString("200000")));
  }

  @Test
  void modelConstraintSelectsTheMatchingNode() throws Exception {
    Pod p =
        new io.fabric8.kubernetes.api.model.PodBuilder(pod("ns", "t4", "uid-t4", 600, 0))
            .editMetadata()
            .addToAnnotations("sharegpu.io/gpu-models", "T4")
            .endMetadata()
            .build();
    call("filter", new ExtenderArgs(p, null, List.of("h100", "t4")))
        .andExpect(jsonPath("$.Error").value(""))
        .andExpect(jsonPath("$.NodeNames[0]").value("t4"))
        .andExpect(jsonPath("$.NodeNames.length()").value(1));
  }

  @Test
  void malformedJsonIs400() throws Exception {
    mvc.perform(post("/filter").contentType(MediaType.APPLICATION_JSON).content("{\"Pod\":"))
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.Error").value(org.hamcrest.Matchers.startsWith("malformed JSON")));
    mvc.perform(post("/bind").contentType(MediaType.APPLICATION_JSON).content(""))
        .andExpect(status().isBadRequest());
  }

  @Test
  void filterWithoutPodIsAnError() throws Exception {
    mvc.perform(
            post("/filter")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"NodeNames\":[\"h100\"]}"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.Error").value("request has no Pod"));
  }

  @Test
  void prioritizeScoresEveryCandidateWithinZeroToTen() throws Exception {
    Pod p = pod("ns", "p", "uid-p", 250, 1024);
    String body =
        call("prioritize", new ExtenderArgs(p, null, List.of("h100", "t4", "cpu-only")))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.length()").value(3))
            .andExpect(jsonPath("$[0].Host").value("h100"))
            .andExpect(jsonPath("$[2].Score").value(0))
            .andReturn()
            .getResponse()
            .getContentAsString();
    assertThat(body).startsWith("[");
    // prioritize commits to the best node: the pod now holds a reservation there
    java.util.Optional<io.sharegpu.core.ledger.Allocation> held =
        view.withLedger(l -> l.allocation("uid-p"));
    assertThat(held.map(x -> x.state())).contains(AllocationState.RESERVED);
  }

  @Test
  void singleFeasibleNodeIsReservedAndCountsForTheNextPod() throws Exception {
    Pod a = pod("ns", "a", "uid-a", 1000, 0);
    Pod b = pod("ns", "b", "uid-b", 1000, 0);
    Pod c = pod("ns", "c", "uid-c", 1000, 0);
    call("filter", new ExtenderArgs(a, null, List.of("t4")))
        .andExpect(jsonPath("$.NodeNames[0]").value("t4"));
    call("filter", new ExtenderArgs(b, null, List.of("t4")))
        .andExpect(jsonPath("$.NodeNames[0]").value("t4"));
    // both T4s are now reserved for a and b: c must not be told the node fits
    call("filter", new ExtenderArgs(c, null, List.of("t4")))
        .andExpect(jsonPath("$.NodeNames.length()").value(0))
        .andExpect(jsonPath("$.FailedNodes.t4").exists());
    // a's retry does not compete with its own reservation
    call("filter", new ExtenderArgs(a, null, List.of("t4")))
        .andExpect(jsonPath("$.NodeNames[0]").value("t4"));
    Fixtures.assertInvariant(view);
  }

  @Test
  void bindAnswersEmptyErrorOnSuccessAndTheReasonOnFailure() throws Exception {
    call("bind", new ExtenderBindingArgs("p", "ns", "uid-p", "h100"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.Error").value(""));
    call("bind", new ExtenderBindingArgs("p", "ns", "uid-p", "t4"))
        .andExpect(jsonPath("$.Error").value("GPUs on t4 no longer fit"));
    call("bind", new ExtenderBindingArgs(null, "ns", "uid-p", "t4"))
        .andExpect(jsonPath("$.Error").value(org.hamcrest.Matchers.containsString("PodName")));
    assertThat(binds).containsExactly("ns/p@h100", "ns/p@t4");
  }

  @Test
  void notReadyAnswersErrors() throws Exception {
    ClusterFixture cold =
        new ClusterFixture(
            null,
            io.sharegpu.core.placement.PlacementPolicies.byName("binpack", 1),
            java.time.Duration.ofSeconds(1));
    ExtenderHandler h =
        cold.handler(
            (a, b, c, d) -> BindOutcome.bound(null),
            new PodEvents(null),
            ExtenderMetrics.inMemory());
    assertThat(
            h.filter(new ExtenderArgs(pod("ns", "x", "u", 100, 0), null, List.of("h100"))).error())
        .contains("rebuilding");
  }
}
