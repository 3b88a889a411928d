package io.sharegpu.extender.preempt;

import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.preemption.PreemptionCandidate;
import io.sharegpu.core.preemption.PreemptionPlan;
import io.sharegpu.core.preemption.VictimSelector;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.mapping.PodDemands;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The preempt verb's decision: for each node kube-scheduler offers, the pods to evict so that the
 * preemptor fits on real GPUs.
 *
 * <p>kube-scheduler picks its victims by node-level sums of {@code sharegpu.io/gpu-milli}: it can
 * name pods spread over several GPUs while no single GPU becomes free enough, or more pods than one
 * GPU needs. Here the candidates are every bound pod on the node of strictly lower priority that
 * holds GPUs (not only kube-scheduler's victims), and {@link VictimSelector} picks the cheapest
 * set: fewest PodDisruptionBudget violations, then fewest victims, then the lowest priorities, then
 * the least GPU time lost. Pods kube-scheduler named that hold no GPU (it wanted their CPU or
 * memory) stay victims. A node where no set makes room is left out of the answer, so kube-scheduler
 * does not preempt there. Pods being deleted are not candidates: their GPUs are already on their
 * way back, and kube-scheduler does not preempt again for a pod nominated to a node where
 * lower-priority pods are still terminating.
 */
public final class Preemption {

  /** The victims on one node and how many of them would violate a PodDisruptionBudget. */
  public record Victims(List<String> podUids, int budgetViolations) {

    public Victims {
      podUids = List.copyOf(podUids);
    }
  }

  private record Candidate(int priority, boolean violatesBudget, Instant startTime) {}

  private final SchedulingState state;
  private final ClusterFeed feed;
  private final DisruptionBudgets budgets;
  private final Clock clock;

  /**
   * Creates the decision over {@code state}, with the bound pods' priorities, labels and start
   * times from {@code feed}.
   */
  public Preemption(
      SchedulingState state, ClusterFeed feed, DisruptionBudgets budgets, Clock clock) {
    this.state = state;
    this.feed = feed;
    this.budgets = budgets;
    this.clock = clock;
  }

  /**
   * Decides a preempt call: nothing while the ledger is rebuilt or for an invalid request,
   * kube-scheduler's victims for a pod without GPUs, else the victims on each offered node ({@link
   * #choose}).
   *
   * @param pod what the preemptor asks ({@link PodDemands#of})
   * @param priority the preemptor's {@code spec.priority}
   * @param offered kube-scheduler's victims per node (pod UIDs)
   */
  public PreemptDecision decide(
      PodDemands.Outcome pod, int priority, Map<String, List<String>> offered) {
    if (!state.isReady()) {
      return new PreemptDecision.NotReady();
    }
    if (pod instanceof PodDemands.Invalid invalid) {
      return new PreemptDecision.Invalid(invalid.message());
    }
    if (!(pod instanceof PodDemands.Demand d)) {
      return new PreemptDecision.NoGpu();
    }
    Optional<String> tooBig = state.tooBig(d.request());
    if (tooBig.isPresent()) {
      return new PreemptDecision.Invalid("invalid GPU request: " + tooBig.get());
    }
    return new PreemptDecision.Chosen(choose(d.demand(), priority, offered));
  }

  /**
   * Chooses the victims on each offered node, under one hold of the state's lock.
   *
   * @param pod the preemptor's GPU demand
   * @param priority the preemptor's {@code spec.priority}
   * @param offered kube-scheduler's victims per node (pod UIDs)
   * @return the victims per node, in the offered order of nodes; nodes where no set of
   *     lower-priority pods makes room for the pod are left out
   */
  public Map<String, Victims> choose(
      PodDemand pod, int priority, Map<String, List<String>> offered) {
    Instant now = clock.instant();
    Map<String, Candidate> lowerPriority = lowerPriority(priority, offered.keySet(), now);
    return state.withPlacementAndLedger(
        (placement, ledger) -> {
          Map<String, PreemptionPlan> plans =
              plans(placement, ledger, pod, priority, offered.keySet(), lowerPriority, now);
          Map<String, Victims> answer = new LinkedHashMap<>();
          for (Map.Entry<String, List<String>> node : offered.entrySet()) {
            if (!(plans.get(node.getKey()) instanceof PreemptionPlan.Evict evict)) {
              continue;
            }
            List<String> victims = new ArrayList<>(evict.victimUids());
            for (String uid : node.getValue()) {
              if (ledger.allocation(uid).isEmpty() && !victims.contains(uid)) {
                victims.add(uid); // kube-scheduler's choice for CPU or memory: no GPU of ours
              }
            }
            int violations =
                (int)
                    evict.victims().stream()
                        .filter(PreemptionCandidate::violatesDisruptionBudget)
                        .count();
            answer.put(node.getKey(), new Victims(victims, violations));
          }
          return answer;
        });
  }

  /**
   * The preemption plan on each node: the cheapest set of lower-priority pods holding GPUs there
   * whose eviction lets the pod fit, or why there is none. For the debug explanation of a pending
   * pod.
   *
   * @param pod the preemptor's GPU demand
   * @param priority the preemptor's {@code spec.priority}
   * @param nodes the nodes to plan on
   * @return one plan per known node, in the order given; unknown nodes are left out
   */
  public Map<String, PreemptionPlan> plans(PodDemand pod, int priority, Collection<String> nodes) {
    Instant now = clock.instant();
    Map<String, Candidate> lowerPriority = lowerPriority(priority, nodes, now);
    return state.withPlacementAndLedger(
        (placement, ledger) -> plans(placement, ledger, pod, priority, nodes, lowerPriority, now));
  }

  /** The bound pods on {@code nodes} of lower priority than {@code priority}, not being deleted. */
  private Map<String, Candidate> lowerPriority(
      int priority, Collection<String> nodes, Instant now) {
    Map<String, Candidate> lowerPriority = new HashMap<>();
    for (List<Pod> pods : feed.assignedPodsOn(nodes).values()) {
      for (Pod p : pods) {
        int podPriority = priority(p);
        if (podPriority < priority && p.getMetadata().getDeletionTimestamp() == null) {
          lowerPriority.put(
              p.getMetadata().getUid(),
              new Candidate(podPriority, budgets.evictionViolates(p), startTime(p, now)));
        }
      }
    }
    return lowerPriority;
  }

  private static Map<String, PreemptionPlan> plans(
      Placement placement,
      Ledger ledger,
      PodDemand pod,
      int priority,
      Collection<String> nodes,
      Map<String, Candidate> lowerPriority,
      Instant now) {
    VictimSelector selector = new VictimSelector(ledger, placement);
    Map<String, PreemptionPlan> plans = new LinkedHashMap<>();
    for (String node : nodes) {
      if (ledger.node(node).isEmpty()) {
        continue;
      }
      List<PreemptionCandidate> candidates = new ArrayList<>();
      for (Allocation a : ledger.allocations(node)) {
        Candidate c = lowerPriority.get(a.podUid());
        if (c != null && a.state() == AllocationState.BOUND) {
          candidates.add(
              PreemptionCandidate.of(a, c.priority(), c.violatesBudget(), c.startTime(), now));
        }
      }
      plans.put(node, selector.select(pod, priority, node, candidates));
    }
    return plans;
  }

  /**
   * The pod's {@code spec.priority}, 0 when unset (what the Priority admission plugin defaults).
   */
  public static int priority(Pod pod) {
    Integer p = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return p == null ? 0 : p;
  }

  private static Instant startTime(Pod pod, Instant now) {
    String start = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
    if (start == null) {
      return now;
    }
    try {
      return Instant.parse(start);
    } catch (DateTimeParseException e) {
      return now;
    }
  }
}
