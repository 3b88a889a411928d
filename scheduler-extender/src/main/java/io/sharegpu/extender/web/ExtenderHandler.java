package io.sharegpu.extender.web;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.core.placement.NodeScores;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.bind.BindRouter;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.mapping.PodDemands;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.preempt.PreemptDecision;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.extender.requeue.WaitingPods;
import io.sharegpu.extender.scheduling.FilterDecision;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler's extender protocol: each verb decodes its arguments, makes one call that decides
 * ({@link SchedulingState#filter}, {@link SchedulingState#prioritize}, {@link Preemption#decide},
 * {@link BindRouter#bind}) and encodes the decision. The protocol rules live here: whole-request
 * failures are answered with {@code Error} (filter, bind); per-node reasons go to {@code
 * FailedNodes} (capacity: preemption could help) or {@code FailedAndUnresolvableNodes} (no eviction
 * helps, or the node has no GPUNode); scores are 0..10.
 */
public final class ExtenderHandler {

  private final SchedulingState state;
  private final BindRouter binder;
  private final PodEvents events;
  private final ExtenderMetrics metrics;
  private final @Nullable WaitingPods waiting;
  private final Preemption preemption;

  /**
   * Creates the handler; pods it turns away for want of GPUs are remembered in {@code waiting}
   * (none: null), preempt calls are decided by {@code preemption}.
   */
  public ExtenderHandler(
      SchedulingState state,
      BindRouter binder,
      PodEvents events,
      ExtenderMetrics metrics,
      @Nullable WaitingPods waiting,
      Preemption preemption) {
    this.state = state;
    this.binder = binder;
    this.events = events;
    this.metrics = metrics;
    this.waiting = waiting;
    this.preemption = preemption;
  }

  /** Answers a filter call. */
  public ExtenderFilterResult filter(ExtenderArgs args) {
    Pod pod = args.pod();
    if (pod == null || pod.getMetadata() == null) {
      metrics.rejection("filter", "malformed");
      return ExtenderFilterResult.error("request has no Pod");
    }
    List<String> names = args.candidateNames();
    FilterDecision decision = state.filter(PodDemands.of(pod), Preemption.priority(pod), names);
    if (decision instanceof FilterDecision.Filtered filtered) {
      return filtered(args, pod, names, filtered);
    }
    if (decision instanceof FilterDecision.Invalid invalid) {
      metrics.rejection("filter", "invalid-request");
      events.warning(ns(pod), name(pod), uid(pod), PodEvents.INVALID_REQUEST, invalid.message());
      return ExtenderFilterResult.error(invalid.message());
    }
    if (decision instanceof FilterDecision.NotReady) {
      metrics.rejection("filter", "not-ready");
      return ExtenderFilterResult.error("the extender is still rebuilding its GPU ledger");
    }
    metrics.decision("filter", "no-gpu");
    return pass(args, names, Map.of(), Map.of());
  }

  /** Encodes a filter decision over the candidates; tells the pod why when nothing fits. */
  private ExtenderFilterResult filtered(
      ExtenderArgs args, Pod pod, List<String> names, FilterDecision.Filtered d) {
    if (d.heldForNominees() > 0) {
      metrics.rejection("filter", "held-for-nominated-pod");
    }
    if (d.feasible().isEmpty()) {
      metrics.decision("filter", "unschedulable");
      metrics.rejection("filter", "no-gpu-fits");
      String why = summary(names, d.failed(), d.unresolvable());
      events.warning(ns(pod), name(pod), uid(pod), PodEvents.GPU_UNSCHEDULABLE, why);
      if (waiting != null) {
        // retry when room appears: GPUs freed, a GPU healthy again, a GPU node added
        waiting.rejected(ns(pod), name(pod), d.demand());
      }
    } else {
      metrics.decision("filter", "feasible");
      if (waiting != null) {
        waiting.forget(d.demand().podUid());
      }
    }
    return pass(args, d.feasible(), d.failed(), d.unresolvable());
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
    PreemptDecision decision =
        preemption.decide(PodDemands.of(pod), Preemption.priority(pod), offered);
    if (decision instanceof PreemptDecision.Chosen chosen) {
      Map<String, Preemption.Victims> victims = chosen.victims();
      victims.forEach(
          (node, v) -> answer.put(node, metaVictims(v.podUids(), v.budgetViolations())));
      metrics.decision("preempt", victims.isEmpty() ? "no-node" : "victims");
      victims.values().stream()
          .mapToInt(v -> v.podUids().size())
          .min()
          .ifPresent(metrics::preemptionVictims);
    } else if (decision instanceof PreemptDecision.NoGpu) {
      metrics.decision("preempt", "no-gpu");
      offered.forEach((node, uids) -> answer.put(node, metaVictims(uids, 0)));
    } else {
      metrics.decision(
          "preempt",
          decision instanceof PreemptDecision.NotReady ? "not-ready" : "invalid-request");
    }
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
    Optional<NodeScores> scores =
        pod == null || pod.getMetadata() == null
            ? Optional.empty()
            : state.prioritize(PodDemands.of(pod), names);
    List<HostPriority> out;
    if (scores.isEmpty()) {
      out = new ArrayList<>(names.size());
      for (String n : names) {
        out.add(new HostPriority(n, PriorityMapping.toExtenderScore(0)));
      }
    } else {
      // one entry per name asked (a name asked twice is answered once), in the order asked
      NodeScores s = scores.get();
      out = new ArrayList<>(s.size());
      for (int i = 0; i < s.size(); i++) {
        out.add(new HostPriority(s.node(i), PriorityMapping.toExtenderScore(s.score(i))));
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

  /**
   * The Event text when nothing fits: how many candidates were checked, how many lack free GPUs now
   * (evicting pods could help) and how many cannot take the pod at all (wrong model, too little
   * memory per GPU, no GPUNode), then up to three nodes with their reasons, those lacking free GPUs
   * first.
   */
  static String summary(
      List<String> names, Map<String, String> failed, Map<String, String> unresolvable) {
    StringBuilder sb = new StringBuilder();
    sb.append("no node has GPUs that fit (").append(names.size()).append(" checked");
    if (!failed.isEmpty()) {
      sb.append(", ").append(failed.size()).append(" without enough free GPU now");
    }
    if (!unresolvable.isEmpty()) {
      sb.append(", ").append(unresolvable.size()).append(" that cannot hold it");
    }
    sb.append(')');
    int shown = 0;
    for (Map<String, String> reasons : List.of(failed, unresolvable)) {
      for (Map.Entry<String, String> e : reasons.entrySet()) {
        if (shown++ == 3) {
          return sb.toString();
        }
        sb.append("; ").append(e.getKey()).append(": ").append(e.getValue());
      }
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
}
