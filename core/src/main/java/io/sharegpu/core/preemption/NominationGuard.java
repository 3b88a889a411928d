package io.sharegpu.core.preemption;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.AllocationState;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps the GPUs that preemption freed for the pod they were freed for.
 *
 * <p>After a preemption kube-scheduler nominates the preemptor to the node and waits for the
 * victims to go; it then retries the preemptor, but a pod that comes first may take the room. For
 * node-level sums kube-scheduler prevents that itself (its filters count nominated pods of equal or
 * higher priority as if they were there), but it cannot see GPUs: two shares of 300m fit a node's
 * 600m of free compute whether or not they fit one GPU. This guard answers, for a pod about to be
 * placed on a node, whether it would take GPUs that a nominated pod of equal or higher priority
 * needs there, on the node as it will be once the pods being deleted are gone.
 *
 * <p>A nominated pod that would not fit there even without the pod being placed (its nomination is
 * stale, or the room it waits for is not coming) holds nothing back. Nominated pods are considered
 * highest priority first, each taking its room before the next. Not thread-safe (it uses the {@link
 * Placement}); the ledger is only read.
 */
public final class NominationGuard {

  /** A pod kube-scheduler nominated to a node, waiting for the GPUs its victims hold. */
  public record Nominee(PodDemand demand, int priority) {}

  private final Ledger ledger;
  private final Placement placement;

  public NominationGuard(Ledger ledger, Placement placement) {
    this.ledger = ledger;
    this.placement = placement;
  }

  /**
   * Returns the nominated pod that {@code pod} would push out were it placed on {@code node} as the
   * policy places it now, or empty when it pushes out none (or does not fit there anyway).
   *
   * @param pod the pod about to be placed
   * @param priority its {@code spec.priority}
   * @param node the node
   * @param nominees the pods nominated to {@code node}; {@code pod} itself, pods of lower priority
   *     and pods that already hold GPUs are ignored
   */
  public Optional<Nominee> pushedOut(
      PodDemand pod, int priority, String node, List<Nominee> nominees) {
    List<Nominee> relevant = new ArrayList<>();
    for (Nominee n : nominees) {
      if (n.priority() >= priority
          && !n.demand().podUid().equals(pod.podUid())
          && ledger.allocation(n.demand().podUid()).isEmpty()) {
        relevant.add(n);
      }
    }
    if (relevant.isEmpty()) {
      return Optional.empty();
    }
    Optional<Allocation> mine = placement.choose(pod, node);
    if (mine.isEmpty()) {
      return Optional.empty();
    }
    Set<String> leaving = new HashSet<>();
    for (Allocation a : ledger.allocations(node)) {
      if (a.state() == AllocationState.TERMINATING) {
        leaving.add(a.podUid());
      }
    }
    Optional<NodeUsage> future = ledger.usageWithout(node, leaving);
    if (future.isEmpty()) {
      return Optional.empty();
    }
    NodeUsage without = future.get();
    NodeUsage with = Ledger.usageWith(without, mine.get(), pod.cpuMilli(), pod.memoryMib());
    relevant.sort(
        Comparator.comparingInt(Nominee::priority)
            .reversed()
            .thenComparing(n -> n.demand().podUid()));
    for (Nominee n : relevant) {
      PodDemand d = n.demand();
      Optional<Allocation> alone = placement.choose(d, without);
      if (alone.isEmpty()) {
        continue; // the room it waits for is not coming: it holds nothing back
      }
      Optional<Allocation> beside = placement.choose(d, with);
      if (beside.isEmpty()) {
        return Optional.of(n);
      }
      without = Ledger.usageWith(without, alone.get(), d.cpuMilli(), d.memoryMib());
      with = Ledger.usageWith(with, beside.get(), d.cpuMilli(), d.memoryMib());
    }
    return Optional.empty();
  }
}
