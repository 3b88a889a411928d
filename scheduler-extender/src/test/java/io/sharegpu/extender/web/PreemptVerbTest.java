package io.sharegpu.extender.web;

import static io.sharegpu.extender.Fixtures.ASSIGNED_AT;
import static io.sharegpu.extender.Fixtures.addNode;
import static io.sharegpu.extender.Fixtures.onGpu;
import static io.sharegpu.extender.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.testcluster.TestPods;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The preempt verb over a hand-fed view: two H100s, each half full of low-priority shares. kube-
 * scheduler's victims come from node sums; the answer names the pods whose eviction frees one GPU.
 */
class PreemptVerbTest {

  private ClusterFixture view;
  private ExtenderHandler handler;

  @BeforeEach
  void setUp() {
    view = Fixtures.view("binpack");
    addNode(view, "h100", "NVIDIA H100 80GB HBM3", 2, 81559);
    addNode(view, "t4", "Tesla T4", 1, 15360);
    handler =
        view.handler(
            (ns, name, uid, node) -> BindOutcome.bound(null),
            new PodEvents(null),
            ExtenderMetrics.inMemory());
    // GPU 0: 300m (priority 10) + 300m (priority 5) + 200m (priority 5); GPU 1: 600m (priority 0)
    view.onPod(bound("a", "uid-a", 0, 300, 10));
    view.onPod(bound("b", "uid-b", 0, 300, 5));
    view.onPod(bound("c", "uid-c", 0, 200, 5));
    view.onPod(bound("d", "uid-d", 1, 600, 0));
  }

  private static Pod bound(String name, String uid, int gpu, int milli, int priority) {
    return Fixtures.share("ns", name, uid, milli, 0)
        .assigned(onGpu("h100", gpu, 81559L * milli / 1000, milli), ASSIGNED_AT)
        .label("app", name)
        .priority(priority)
        .phase("Running")
        .startTime("2026-12-01T00:00:05Z")
        .build();
  }

  private static Pod preemptor(int milli, int priority) {
    return Fixtures.share("ns", "urgent", "uid-urgent", milli, 0).priority(priority).build();
  }

  private ExtenderPreemptionResult preempt(Pod pod, Map<String, List<String>> offered) {
    Map<String, ExtenderPreemptionArgs.MetaVictims> meta = new LinkedHashMap<>();
    offered.forEach(
        (node, uids) ->
            meta.put(
                node,
                new ExtenderPreemptionArgs.MetaVictims(
                    uids.stream().map(ExtenderPreemptionArgs.MetaPod::new).toList(), 0)));
    return handler.preempt(new ExtenderPreemptionArgs(pod, null, meta));
  }

  private static List<String> victims(ExtenderPreemptionResult r, String node) {
    return r.nodeNameToMetaVictims().get(node).pods().stream()
        .map(ExtenderPreemptionArgs.MetaPod::uid)
        .toList();
  }

  @Test
  void aShareEvictsTheOnePodWhoseGpuItThenFitsNotKubeSchedulersNodeSumChoice() {
    // 700m: GPU 1 has 400m free, evicting d (600m, priority 0) frees it whole; kube-scheduler,
    // counting node sums, offered b and c (500m across GPU 0, where 700m can never fit with a)
    ExtenderPreemptionResult r =
        preempt(preemptor(700, 100), Map.of("h100", List.of("uid-b", "uid-c")));
    assertThat(victims(r, "h100")).containsExactly("uid-d");
    assertThat(r.nodeNameToMetaVictims().get("h100").numPdbViolations()).isZero();
    Fixtures.assertInvariant(view);
  }

  @Test
  void aPodOfPriorityNotAboveAnyonesPreemptsNothing() {
    ExtenderPreemptionResult r = preempt(preemptor(700, 0), Map.of("h100", List.of("uid-d")));
    assertThat(r.nodeNameToMetaVictims()).isEmpty();
  }

  @Test
  void aNodeWhereNoEvictionMakesRoomIsLeftOut() {
    // 800m of 15,360 MiB T4 memory is fine, but the T4 holds nobody to evict and is too small for
    // 20 GiB: dropped; the H100 stays
    Pod big = Fixtures.share("ns", "urgent", "uid-urgent", 800, 20480).priority(100).build();
    ExtenderPreemptionResult r = preempt(big, Map.of("t4", List.of(), "h100", List.of("uid-d")));
    assertThat(r.nodeNameToMetaVictims()).containsOnlyKeys("h100");
    assertThat(victims(r, "h100")).containsExactly("uid-d");
  }

  @Test
  void wholeGpusEvictEveryShareOnTheCheapestGpu() {
    // one whole GPU: GPU 1 costs one victim (d), GPU 0 three
    ExtenderPreemptionResult r = preempt(preemptor(1000, 100), Map.of("h100", List.of()));
    assertThat(victims(r, "h100")).containsExactly("uid-d");
  }

  @Test
  void aPodWithoutAGpuKeepsKubeSchedulersVictims() {
    Pod cpuOnly =
        TestPods.pod("cpu")
            .namespace("ns")
            .uid("uid-cpu")
            .schedulerName(null)
            .priority(100)
            .containers(new ContainerBuilder().withName("main").build())
            .build();
    ExtenderPreemptionResult r = preempt(cpuOnly, Map.of("h100", List.of("uid-b")));
    assertThat(victims(r, "h100")).containsExactly("uid-b");
  }

  @Test
  void aBodyWithoutAPodIsMalformed() {
    assertThatThrownBy(() -> handler.preempt(new ExtenderPreemptionArgs(null, null, Map.of())))
        .isInstanceOf(MalformedRequestException.class);
  }

  @Test
  void disruptionBudgetSelectorsMatchAsKubernetesDoes() {
    var selector =
        new LabelSelectorBuilder()
            .addToMatchLabels("app", "web")
            .addNewMatchExpression()
            .withKey("tier")
            .withOperator("In")
            .withValues("a", "b")
            .endMatchExpression()
            .addNewMatchExpression()
            .withKey("canary")
            .withOperator("DoesNotExist")
            .endMatchExpression()
            .build();
    assertThat(
            io.sharegpu.extender.preempt.DisruptionBudgetsAccess.matches(
                selector, Map.of("app", "web", "tier", "b")))
        .isTrue();
    assertThat(
            io.sharegpu.extender.preempt.DisruptionBudgetsAccess.matches(
                selector, Map.of("app", "web", "tier", "c")))
        .isFalse();
    assertThat(
            io.sharegpu.extender.preempt.DisruptionBudgetsAccess.matches(
                selector, Map.of("app", "web", "tier", "a", "canary", "1")))
        .isFalse();
    assertThat(io.sharegpu.extender.preempt.DisruptionBudgetsAccess.matches(null, Map.of()))
        .isFalse();
  }
}
