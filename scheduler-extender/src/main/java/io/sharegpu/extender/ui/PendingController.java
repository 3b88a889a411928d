package io.sharegpu.extender.ui;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Rejection;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.requeue.WaitingPods;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.http.CacheControl;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The GPU pods that wait for GPUs, with the reasons each node turns them away: the pods filter
 * turned away (remembered by {@link WaitingPods}), filtered again against every node now. The same
 * words as the pods' FailedScheduling events and {@code /debug/pods/{ns}/{name}/explain}.
 */
@RestController
@RequestMapping("/debug")
class PendingController {

  /** At most this many pods are explained per answer (each costs one filter over all nodes). */
  static final int MAX_PODS = 100;

  /** At most this many node names are listed per reason. */
  static final int MAX_NODES_PER_REASON = 5;

  private final SchedulingState state;
  private final ClusterFeed feed;
  private final WaitingPods waiting;
  private volatile @Nullable Cached cached;

  /** The last answer and what it was computed from. */
  private record Cached(String key, Pending pending, long builtAt, long buildNanos) {}

  /** Filtered again at most this often (nanoseconds)... */
  static final long MIN_REBUILD_NANOS = 1_000_000_000L;

  /** ...and at least this many times the last pass's time apart: at most a fifth of a core. */
  static final long REBUILD_SPACING = 5;

  PendingController(SchedulingState state, ClusterFeed feed, WaitingPods waiting) {
    this.state = state;
    this.feed = feed;
    this.waiting = waiting;
  }

  /** One container's request: compute in milli (a multiple of 1000 for whole GPUs), memory MiB. */
  record ContainerRequest(String container, int computeMilli, long memoryMib) {}

  /** One reason and the nodes that give it: {@code count} in all, the first few by name. */
  record ReasonNodes(String reason, int count, List<String> nodes) {}

  /** A pod waiting for GPUs. {@code fitsNow} nodes have room now (a retry is on its way). */
  record PendingPod(
      String pod,
      String namespace,
      String name,
      String uid,
      List<ContainerRequest> containers,
      List<String> models,
      int fitsNow,
      List<ReasonNodes> reasons) {}

  /** The waiting pods, {@code total} in all, at most {@link #MAX_PODS} explained. */
  record Pending(int total, List<PendingPod> pods) {}

  /**
   * The pods waiting for GPUs and why each node turned them away; with an ETag (304 when the page
   * has it already). Filtered again only when the ledger or the waiting pods changed, at most once
   * a second and never more than a fifth of the time.
   */
  @GetMapping("/pending")
  ResponseEntity<Pending> pending() {
    List<PodDemand> demands = new ArrayList<>();
    for (PodDemand d : waiting.waitingDemands()) {
      if (stillPending(d)) {
        demands.add(d);
      }
    }
    demands.sort(Comparator.comparing(PodDemand::podKey));
    String key =
        state.withLedger(l -> l.version() + "-" + l.nodesVersion())
            + "-"
            + demands.stream().map(PodDemand::podUid).toList().hashCode();
    Cached c = cached;
    long now = System.nanoTime();
    if (c == null
        || (!c.key().equals(key)
            && now - c.builtAt()
                >= Math.max(MIN_REBUILD_NANOS, REBUILD_SPACING * c.buildNanos()))) {
      Pending p = explainAll(demands);
      long end = System.nanoTime();
      c = new Cached(key, p, end, end - now);
      cached = c;
    }
    return ResponseEntity.ok()
        .eTag("\"" + Integer.toHexString(c.pending().hashCode()) + "\"")
        .cacheControl(CacheControl.noCache())
        .body(c.pending());
  }

  private Pending explainAll(List<PodDemand> demands) {
    List<PendingPod> out = new ArrayList<>();
    for (PodDemand d : demands.subList(0, Math.min(MAX_PODS, demands.size()))) {
      out.add(explain(d));
    }
    return new Pending(demands.size(), out);
  }

  private boolean stillPending(PodDemand d) {
    int slash = d.podKey().indexOf('/');
    Optional<Pod> pod =
        feed.cachedPod(d.podKey().substring(0, slash), d.podKey().substring(slash + 1));
    return pod.isPresent()
        && d.podUid().equals(pod.get().getMetadata().getUid())
        && (pod.get().getSpec() == null || pod.get().getSpec().getNodeName() == null)
        && pod.get().getMetadata().getDeletionTimestamp() == null;
  }

  private PendingPod explain(PodDemand d) {
    FilterResult result =
        state.withPlacementAndLedger((p, ledger) -> p.filter(d, sortedNames(ledger)));
    Map<String, List<String>> byReason = new LinkedHashMap<>();
    for (int i = 0; i < result.rejectedCount(); i++) {
      Rejection r = result.rejection(i);
      byReason.computeIfAbsent(r.reason(), k -> new ArrayList<>()).add(r.node());
    }
    List<ReasonNodes> reasons = new ArrayList<>();
    byReason.forEach(
        (reason, nodes) -> {
          nodes.sort(null);
          reasons.add(
              new ReasonNodes(
                  reason,
                  nodes.size(),
                  List.copyOf(nodes.subList(0, Math.min(MAX_NODES_PER_REASON, nodes.size())))));
        });
    reasons.sort(Comparator.comparingInt(ReasonNodes::count).reversed());
    List<ContainerRequest> containers = new ArrayList<>();
    for (GpuDemand c : d.containers()) {
      containers.add(new ContainerRequest(c.container(), c.computeMilli(), c.memoryMib()));
    }
    int slash = d.podKey().indexOf('/');
    return new PendingPod(
        d.podKey(),
        d.podKey().substring(0, slash),
        d.podKey().substring(slash + 1),
        d.podUid(),
        containers,
        d.models().stream().sorted().toList(),
        result.feasible().size(),
        reasons);
  }

  private static List<String> sortedNames(Ledger ledger) {
    return ledger.nodeNames().stream().sorted().toList();
  }
}
