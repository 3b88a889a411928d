package io.sharegpu.extender.scheduling;

import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.Rejection;
import io.sharegpu.core.preemption.NominationGuard;
import io.sharegpu.core.preemption.ShortfallClassifier;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One evaluation of filter, made under {@link SchedulingState}'s lock, with what the recheck for
 * pods being deleted needs (the ledger version it saw, whether such a pod holds GPUs on a
 * candidate).
 */
record FilterPass(
    List<String> feasible,
    Map<String, String> failed,
    Map<String, String> unresolvable,
    long ledgerVersion,
    boolean terminatingOnCandidates,
    int heldForNominees) {

  /** True when nothing fits and a pod being deleted holds GPUs on a rejected candidate. */
  boolean waitForTerminating() {
    return feasible.isEmpty() && terminatingOnCandidates;
  }

  FilterDecision.Filtered decision(PodDemand demand) {
    return new FilterDecision.Filtered(demand, feasible, failed, unresolvable, heldForNominees);
  }

  /**
   * Evaluates filter for {@code demand} over {@code names}: core's fit, then the room held for
   * nominated pods, then the rejected nodes sorted into those where evicting pods could help
   * ({@code failed}) and the rest ({@code unresolvable}). Called under the state's lock; reads
   * only.
   */
  static FilterPass evaluate(
      Placement placement,
      Ledger ledger,
      Nominations nominations,
      PodDemand demand,
      int priority,
      List<String> names) {
    FilterResult r = placement.filter(demand, names);
    Map<String, String> failed = new LinkedHashMap<>();
    List<String> feasible =
        nominations.isEmpty()
            ? r.feasible()
            : holdNominatedRoom(
                placement, ledger, nominations, demand, priority, r.feasible(), failed);
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
  }

  /**
   * The feasible nodes where placing the pod leaves room for every pod nominated there of equal or
   * higher priority ({@link NominationGuard}); the others go to {@code failed} with the reason.
   */
  private static List<String> holdNominatedRoom(
      Placement placement,
      Ledger ledger,
      Nominations nominations,
      PodDemand demand,
      int priority,
      List<String> feasible,
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
}
