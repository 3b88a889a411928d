package io.sharegpu.extender.web;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.NodeScores;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.Rejection;
import io.sharegpu.core.preemption.NominationGuard;
import io.sharegpu.core.preemption.ShortfallClassifier;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.bind.BindRouter;
import io.sharegpu.extender.cluster.ClusterView;
import io.sharegpu.extender.cluster.DemandMapper;
import io.sharegpu.extender.cluster.Nominations;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.preempt.DisruptionBudgets;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.extender.requeue.WaitingPods;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler's extender protocol over the cluster view: filter, prioritize and bind. Whole
 * request failures are answered with {@code Error} (filter, bind); per-node reasons go to {@code
 * FailedNodes} (capacity: preemption could help) or {@code FailedAndUnresolvableNodes} (the node
 * has no GPUNode); scores are 0..10.
 */
public final class ExtenderHandler {

  /** How long filter waits for the ledger to change when a pod being deleted holds GPUs. */
  static final Duration TERMINATING_RECHECK = Duration.ofMillis(100);

  private final ClusterView view;
  private final Cache<String, Boolean> recentlyWaited =
      Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(Duration.ofSeconds(1)).build();
  private final BindRouter binder;
  private final PodEvents events;
  private final ExtenderMetrics metrics;
  private final @Nullable WaitingPods waiting;
  private final Preemption preemption;

  /** Creates the handler without {@link WaitingPods} and without PodDisruptionBudgets (tests). */
  public ExtenderHandler(
      ClusterView view, BindRouter binder, PodEvents events, ExtenderMetrics metrics) {
    this(
        view,
        binder,
        events,
        metrics,
        null,
        new Preemption(view, DisruptionBudgets.none(), Clock.systemUTC()));
  }

  /**
   * Creates the handler; pods it turns away for want of GPUs are remembered in {@code waiting},
   * preempt calls are decided by {@code preemption}.
   */
  public ExtenderHandler(
      ClusterView view,
      BindRouter binder,
      PodEvents events,
      ExtenderMetrics metrics,
      @Nullable WaitingPods waiting,
      Preemption preemption) {
    this.view = view;
    this.binder = binder;
    this.events = events;
    this.metrics = metrics;
    this.waiting = waiting;
    this.preemption = preemption;
  }

  /** Answers a filter call. */
  public ExtenderFilterResult filter(ExtenderArgs args) {
    List<String> names = args.candidateNames();
    Pod pod = args.pod();
    if (pod == null || pod.getMetadata() == null) {
      metrics.rejection("filter", "malformed");
      return ExtenderFilterResult.error("request has no Pod");
    }
    if (!view.isReady()) {
      metrics.rejection("filter", "not-ready");
      return ExtenderFilterResult.error("the extender is still rebuilding its GPU ledger");
    }
    Demand d = demand(pod);
    if (d.error != null) {
      metrics.rejection("filter", "invalid-request");
      events.warning(ns(pod), name(pod), uid(pod), PodEvents.INVALID_REQUEST, d.error);
      return ExtenderFilterResult.error(d.error);
    }
    if (d.demand == null) {
      metrics.decision("filter", "no-gpu");
      return pass(args, names, Map.of(), Map.of());
    }
    PodDemand demand = d.demand;
    view.observe(demand);
    view.dropOwnReservation(demand.podUid());
    int priority = Preemption.priority(pod);
    FilterPass pass = filterPass(demand, priority, names);
    if (pass.feasible.isEmpty()
        && pass.terminatingOnCandidates
        && recentlyWaited.asMap().putIfAbsent(demand.podUid(), Boolean.TRUE) == null) {
      // kube-scheduler retries a waiting pod on the event that deletes a pod, and its informer may
      // see that delete before ours does; no later event need come to retry the pod again. When a
      // pod being deleted holds GPUs on a candidate, give our informer a moment to catch up. At
      // most once a second per pod (kube-scheduler's backoff spaces retries at least that far).
      if (awaitLedgerChange(pass.ledgerVersion)) {
        pass = filterPass(demand, priority, names);
      }
    }
    List<String> feasible = pass.feasible;
    if (pass.heldForNominees > 0) {
      metrics.rejection("filter", "held-for-nominated-pod");
    }
    Map<String, String> failed = pass.failed;
    Map<String, String> unresolvable = pass.unresolvable;
    if (feasible.isEmpty()) {
      metrics.decision("filter", "unschedulable");
      metrics.rejection("filter", "no-gpu-fits");
      events.warning(
          ns(pod),
          name(pod),
          uid(pod),
          PodEvents.GPU_UNSCHEDULABLE,
          summary(names, failed, unresolvable));
      if (waiting != null) {
        // retry when room appears: GPUs freed, a GPU healthy again, a GPU node added
        waiting.rejected(ns(pod), name(pod), demand);
      }
    } else {
      metrics.decision("filter", "feasible");
      if (waiting != null) {
        waiting.forget(demand.podUid());
      }
      if (feasible.size() == 1) {
        // prioritize is skipped with one node left: this is the node the scheduler will bind to.
        view.reserve(demand, feasible.get(0));
      }
    }
    return pass(args, feasible, failed, unresolvable);
  }

  /** One evaluation of filter under the ledger lock, with what the recheck needs. */
  private record FilterPass(
      List<String> feasible,
      Map<String, String> failed,
      Map<String, String> unresolvable,
      long ledgerVersion,
      boolean terminatingOnCandidates,
      int heldForNominees) {}

  private FilterPass filterPass(PodDemand demand, int priority, List<String> names) {
    Nominations nominations = view.nominations();
    return view.withPlacementAndLedger(
        (p, ledger) -> {
          FilterResult r = p.filter(demand, names);
          Map<String, String> failed = new LinkedHashMap<>();
          List<String> feasible =
              nominations.isEmpty()
                  ? r.feasible()
                  : holdNominatedRoom(
                      demand, priority, r.feasible(), nominations, p, ledger, failed);
          Map<String, String> unresolvable = new LinkedHashMap<>();
          Set<String> known = ledger.nodeNames();
          boolean terminating = false;
          ShortfallClassifier shortfalls = null;
          for (int i = 0; i < r.rejectedCount(); i++) {
            Rejection rejection = r.rejection(i);
            if (known.contains(rejection.node())) {
              if (shortfalls == null) {
                shortfalls = new ShortfallClassifier(ledger);
              }
              if (!shortfalls.classify(demand, rejection.node()).preemptionCouldHelp()) {
                // a wrong model, more memory or GPUs than the node has: no eviction helps
                unresolvable.put(rejection.node(), rejection.reason());
                continue;
              }
              failed.put(rejection.node(), rejection.reason());
              if (feasible.isEmpty() && !terminating) {
                terminating =
                    ledger.allocations(rejection.node()).stream()
                        .anyMatch(a -> a.state() == AllocationState.TERMINATING);
              }
            } else {
              unresolvable.put(rejection.node(), rejection.reason());
            }
          }
          return new FilterPass(
              feasible,
              failed,
              unresolvable,
              ledger.version(),
              terminating,
              r.feasible().size() - feasible.size());
        });
  }

  /**
   * The feasible nodes where placing the pod leaves room for every pod nominated there of equal or
   * higher priority ({@link NominationGuard}); the others go to {@code failed} with the reason.
   */
  private static List<String> holdNominatedRoom(
      PodDemand demand,
      int priority,
      List<String> feasible,
      Nominations nominations,
      Placement placement,
      Ledger ledger,
      Map<String, String> failed) {
    List<String> kept = null;
    NominationGuard guard = null;
    for (int i = 0; i < feasible.size(); i++) {
      String node = feasible.get(i);
      List<NominationGuard.Nominee> nominees = nominations.on(node);
      Optional<NominationGuard.Nominee> pushed = Optional.empty();
      if (!nominees.isEmpty()) {
        if (guard == null) {
          guard = new NominationGuard(ledger, placement);
        }
        pushed = guard.pushedOut(demand, priority, node, nominees);
      }
      if (pushed.isPresent()) {
        if (kept == null) {
          kept = new ArrayList<>(feasible.subList(0, i));
        }
        failed.put(
            node,
            "the GPU room it has is held for pod "
                + pushed.get().demand().podKey()
                + " (priority "
                + pushed.get().priority()
                + "), which preempted pods on this node to get it");
      } else if (kept != null) {
        kept.add(node);
      }
    }
    return kept == null ? feasible : kept;
  }

  private boolean awaitLedgerChange(long version) {
    try {
      return view.awaitLedgerChange(version, TERMINATING_RECHECK);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Answers a preempt call: for each node kube-scheduler offers, the pods to evict so that the pod
   * fits on real GPUs ({@link Preemption}), always as {@code NodeNameToMetaVictims}; nodes where no
   * eviction of lower-priority pods makes room are left out. A pod without a GPU request keeps
   * kube-scheduler's victims; an invalid request, or an extender still rebuilding its ledger,
   * preempts nothing.
   */
  public ExtenderPreemptionResult preempt(ExtenderPreemptionArgs args) {
    Pod pod = args.pod();
    if (pod == null || pod.getMetadata() == null) {
      metrics.rejection("preempt", "malformed");
      throw new MalformedRequestException("request has no Pod");
    }
    Map<String, List<String>> offered = new LinkedHashMap<>();
    if (args.nodeNameToMetaVictims() != null) {
      args.nodeNameToMetaVictims()
          .forEach(
              (node, v) -> {
                List<String> uids = new ArrayList<>();
                if (v != null && v.pods() != null) {
                  v.pods().forEach(m -> uids.add(m.uid()));
                }
                offered.put(node, uids);
              });
    } else if (args.nodeNameToVictims() != null) {
      args.nodeNameToVictims()
          .forEach(
              (node, v) -> {
                List<String> uids = new ArrayList<>();
                if (v != null && v.pods() != null) {
                  v.pods().forEach(p -> uids.add(uid(p)));
                }
                offered.put(node, uids);
              });
    }
    Map<String, ExtenderPreemptionArgs.MetaVictims> answer = new LinkedHashMap<>();
    if (!view.isReady()) {
      metrics.decision("preempt", "not-ready");
      return new ExtenderPreemptionResult(answer);
    }
    Demand d = demand(pod);
    if (d.error != null) {
      metrics.decision("preempt", "invalid-request");
      return new ExtenderPreemptionResult(answer);
    }
    if (d.demand == null) {
      metrics.decision("preempt", "no-gpu");
      offered.forEach((node, uids) -> answer.put(node, metaVictims(uids, 0)));
      return new ExtenderPreemptionResult(answer);
    }
    Map<String, Preemption.Victims> chosen =
        preemption.choose(d.demand, Preemption.priority(pod), offered);
    chosen.forEach((node, v) -> answer.put(node, metaVictims(v.podUids(), v.budgetViolations())));
    metrics.decision("preempt", chosen.isEmpty() ? "no-node" : "victims");
    chosen.values().stream()
        .mapToInt(v -> v.podUids().size())
        .min()
        .ifPresent(metrics::preemptionVictims);
    return new ExtenderPreemptionResult(answer);
  }

  private static ExtenderPreemptionArgs.MetaVictims metaVictims(List<String> uids, int violations) {
    List<ExtenderPreemptionArgs.MetaPod> pods = new ArrayList<>(uids.size());
    for (String uid : uids) {
      pods.add(new ExtenderPreemptionArgs.MetaPod(uid));
    }
    return new ExtenderPreemptionArgs.MetaVictims(pods, violations);
  }

  /**
   * Answers a prioritize call: every candidate with a score 0..10, the policy's best node 10 and
   * the others at most 3 ({@link PriorityMapping}).
   */
  public List<HostPriority> prioritize(ExtenderArgs args) {
    List<String> names = args.candidateNames();
    Pod pod = args.pod();
    NodeScores scores = null;
    if (pod != null && pod.getMetadata() != null && view.isReady()) {
      Demand d = demand(pod);
      if (d.demand != null) {
        PodDemand demand = d.demand;
        view.dropOwnReservation(demand.podUid());
        scores = view.withPlacement(p -> p.prioritize(demand, names));
        String best = null;
        int bestScore = 0;
        for (int i = 0; i < scores.size(); i++) {
          if (scores.score(i) > bestScore) {
            best = scores.node(i);
            bestScore = scores.score(i);
          }
        }
        if (best != null) {
          view.reserve(demand, best);
        }
      }
    }
    List<HostPriority> out;
    if (scores == null) {
      out = new ArrayList<>(names.size());
      for (String n : names) {
        out.add(new HostPriority(n, PriorityMapping.toExtenderScore(0)));
      }
    } else {
      // one entry per name asked (a name asked twice is answered once), in the order asked
      out = new ArrayList<>(scores.size());
      for (int i = 0; i < scores.size(); i++) {
        out.add(new HostPriority(scores.node(i), PriorityMapping.toExtenderScore(scores.score(i))));
      }
    }
    metrics.decision("prioritize", "scored");
    return out;
  }

  /** Answers a bind call. */
  public ExtenderBindingResult bind(ExtenderBindingArgs args) {
    String podName = args.podName();
    String namespace = args.podNamespace();
    String uid = args.podUid();
    String node = args.node();
    if (isBlank(podName) || isBlank(namespace) || isBlank(uid) || isBlank(node)) {
      metrics.rejection("bind", "malformed");
      return new ExtenderBindingResult("bind request needs PodName, PodNamespace, PodUID and Node");
    }
    String invalid =
        !KubernetesNames.isSubdomain(podName)
            ? "PodName"
            : !KubernetesNames.isLabel(namespace)
                ? "PodNamespace"
                : !KubernetesNames.isUid(uid)
                    ? "PodUID"
                    : !KubernetesNames.isSubdomain(node) ? "Node" : null;
    if (invalid != null) {
      // no pod or node can have that name: no need to ask the API server
      metrics.rejection("bind", "malformed");
      return new ExtenderBindingResult("bind request has an invalid " + invalid);
    }
    BindOutcome outcome = binder.bind(namespace, podName, uid, node);
    metrics.decision("bind", outcome.ok() ? "bound" : "failed");
    return outcome.ok() ? ExtenderBindingResult.OK : new ExtenderBindingResult(outcome.message());
  }

  private ExtenderFilterResult pass(
      ExtenderArgs args,
      List<String> feasible,
      Map<String, String> failed,
      Map<String, String> unresolvable) {
    if (args.sentNodeObjects()) {
      NodeList in = args.nodes();
      Set<String> keep = Set.copyOf(feasible);
      List<Node> items = new ArrayList<>();
      if (in != null && in.getItems() != null) {
        for (Node n : in.getItems()) {
          if (keep.contains(n.getMetadata().getName())) {
            items.add(n);
          }
        }
      }
      return new ExtenderFilterResult(
          new NodeListBuilder().withItems(items).build(), null, failed, unresolvable, "");
    }
    return new ExtenderFilterResult(null, List.copyOf(feasible), failed, unresolvable, "");
  }

  private Demand demand(Pod pod) {
    String uid = uid(pod);
    ParsedRequest parsed = PodGpuRequestParser.parse(pod);
    if (parsed instanceof ParsedRequest.Invalid invalid) {
      return new Demand(null, "invalid GPU request: " + String.join("; ", invalid.errors()));
    }
    if (!(parsed instanceof ParsedRequest.Valid valid)) {
      return new Demand(null, null);
    }
    if (uid.isEmpty()) {
      return new Demand(null, "pod has no metadata.uid");
    }
    long largest = view.largestGpuMemoryMib();
    if (largest > 0) {
      Optional<String> tooBig = PodGpuRequestParser.checkMemoryFits(valid.request(), largest);
      if (tooBig.isPresent()) {
        return new Demand(null, "invalid GPU request: " + tooBig.get());
      }
    }
    try {
      return new Demand(
          DemandMapper.toDemand(ns(pod) + "/" + name(pod), uid, valid.request()), null);
    } catch (IllegalArgumentException e) {
      return new Demand(null, "invalid GPU request: " + e.getMessage());
    }
  }

  private static String summary(
      List<String> names, Map<String, String> failed, Map<String, String> unresolvable) {
    StringBuilder sb = new StringBuilder();
    sb.append("no node has GPUs that fit (").append(names.size()).append(" checked)");
    int shown = 0;
    for (Map.Entry<String, String> e : failed.entrySet()) {
      if (shown++ == 3) {
        break;
      }
      sb.append("; ").append(e.getKey()).append(": ").append(e.getValue());
    }
    if (!unresolvable.isEmpty()) {
      sb.append("; ").append(unresolvable.size()).append(" node(s) without a GPUNode");
    }
    return sb.toString();
  }

  private static boolean isBlank(@Nullable String s) {
    return s == null || s.isBlank();
  }

  private static String ns(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    return ns == null ? "" : ns;
  }

  private static String name(Pod pod) {
    String n = pod.getMetadata().getName();
    return n == null ? "" : n;
  }

  private static String uid(Pod pod) {
    String u = pod.getMetadata().getUid();
    return u == null ? "" : u;
  }

  private record Demand(@Nullable PodDemand demand, @Nullable String error) {}
}
