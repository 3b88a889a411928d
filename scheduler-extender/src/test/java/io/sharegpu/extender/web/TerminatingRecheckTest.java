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
import io.sharegpu.testcluster.TestPods;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * kube-scheduler retries a waiting pod on the event that deletes a pod; when that filter call
 * arrives before the extender's informer has seen the delete, filter waits briefly for it instead
 * of leaving the pod to wait for an unrelated event.
 */
class TerminatingRecheckTest {

  private ClusterFixture view;
  private ExtenderHandler handler;

  @BeforeEach
  void setUp() {
    view = Fixtures.view("binpack");
    addNode(view, "l4", "NVIDIA L4", 1, 23034);
    handler =
        view.handler(
            (ns, name, uid, node) -> BindOutcome.bound(null),
            new PodEvents(null),
            ExtenderMetrics.inMemory());
  }

  private static Pod bound(String name, String uid, int milli, boolean terminating) {
    TestPods.Builder b =
        Fixtures.share("ns", name, uid, milli, 0)
            .assigned(onGpu("l4", 0, 23034L * milli / 1000, milli), ASSIGNED_AT);
    if (terminating) {
      b.deleting("2026-12-01T00:00:01Z");
    }
    return b.build();
  }

  private ExtenderFilterResult filter(String name, String uid, int milli) {
    return handler.filter(new ExtenderArgs(pod("ns", name, uid, milli, 0), null, List.of("l4")));
  }

  @Test
  void aPodBeingDeletedWithoutADeleteComingStillGetsItsRejection() {
    view.onPod(bound("old", "uid-old", 800, true));
    assertThat(filter("new", "uid-new", 500).nodeNames()).isEmpty();
    assertThat(filter("new", "uid-new", 500).failedNodes()).containsKey("l4");
  }

  @Test
  void aDeleteSeenWhileFilterWaitsLetsThePodFit() throws Exception {
    Pod old = bound("old", "uid-old", 800, true);
    view.onPod(old);
    view.onPod(bound("other", "uid-other", 100, false));
    // the retry that the delete caused, reaching us a moment before the delete itself
    CompletableFuture<Void> delete =
        CompletableFuture.runAsync(
            () -> view.onPodDelete(old),
            CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
    ExtenderFilterResult r = filter("new", "uid-new", 500);
    delete.get(5, TimeUnit.SECONDS);
    assertThat(r.nodeNames()).containsExactly("l4");
  }
}
