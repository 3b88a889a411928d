package io.sharegpu.extender.web;

import static io.sharegpu.extender.Fixtures.ASSIGNED_AT;
import static io.sharegpu.extender.Fixtures.addNode;
import static io.sharegpu.extender.Fixtures.onGpu;
import static io.sharegpu.extender.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * After a preemption, the room its victims free is held for the nominated preemptor: a pod of lower
 * priority that would take it is turned away on that node, even where node-level sums let it in.
 */
class NominatedRoomTest {
  private static final long MIB = 81559;

  private ClusterFixture view;
  private ExtenderHandler handler;

  @BeforeEach
  void setUp() {
    view = Fixtures.view("binpack");
    addNode(view, "h", "NVIDIA H100 80GB HBM3", 2, MIB);
    handler =
        view.handler(
            (ns, name, uid, node) -> BindOutcome.bound(null),
            new PodEvents(null),
            ExtenderMetrics.inMemory());
    // GPU 0: k 300m; GPU 1: m 800m (the victim that held 600m on GPU 0 is gone)
    view.onPod(bound("k", 0, 300));
    view.onPod(bound("m", 1, 800));
  }

  private static Pod bound(String name, int gpu, int milli) {
    return Fixtures.share("ns", name, "uid-" + name, milli, 0)
        .assigned(onGpu("h", gpu, MIB * milli / 1000, milli), ASSIGNED_AT)
        .build();
  }

  private static Pod waiting(String name, int milli, int priority, String nominatedNode) {
    return Fixtures.share("ns", name, "uid-" + name, milli, 0)
        .priority(priority)
        .phase("Pending")
        .nominatedNode(nominatedNode)
        .build();
  }

  private ExtenderFilterResult filter(Pod pod) {
    return handler.filter(new ExtenderArgs(pod, null, List.of("h")));
  }

  @Test
  void aLowerPriorityPodMayNotTakeTheRoomHeldForTheNominatedPreemptor() {
    Pod late = waiting("late", 300, 10, null);
    assertThat(filter(late).nodeNames()).containsExactly("h");

    view.onPod(waiting("urgent", 600, 1000, "h"));

    ExtenderFilterResult r = filter(late);
    assertThat(r.nodeNames()).isEmpty();
    assertThat(r.failedNodes().get("h")).contains("held for pod ns/urgent (priority 1000)");
    // the preemptor itself fits, and a pod that leaves it room still goes
    assertThat(filter(waiting("urgent", 600, 1000, "h")).nodeNames()).containsExactly("h");
    assertThat(filter(waiting("small", 200, 10, null)).nodeNames()).containsExactly("h");
  }

  @Test
  void theRoomIsLetGoOnceThePreemptorIsBoundOrGone() {
    Pod late = waiting("late", 300, 10, null);
    view.onPod(waiting("urgent", 600, 1000, "h"));
    assertThat(filter(late).nodeNames()).isEmpty();
    long before = view.roomVersion();

    view.onPodDelete(waiting("urgent", 600, 1000, "h"));

    assertThat(view.roomVersion()).isGreaterThan(before);
    assertThat(filter(late).nodeNames()).containsExactly("h");
    // nominated again, then bound elsewhere on the node: what it holds is in the ledger now
    view.onPod(waiting("urgent", 600, 1000, "h"));
    assertThat(filter(late).nodeNames()).isEmpty();
    view.onPod(
        Fixtures.share("ns", "urgent", "uid-urgent", 600, 0)
            .assigned(onGpu("h", 0, MIB * 600 / 1000, 600), ASSIGNED_AT)
            .priority(1000)
            .nominatedNode("h")
            .build());
    assertThat(view.nominations().isEmpty()).isTrue();
  }

  @Test
  void aPodOfHigherPriorityThanTheNomineeIsNotHeldBack() {
    view.onPod(waiting("urgent", 600, 1000, "h"));

    assertThat(filter(waiting("critical", 300, 2000, null)).nodeNames()).containsExactly("h");
  }
}
