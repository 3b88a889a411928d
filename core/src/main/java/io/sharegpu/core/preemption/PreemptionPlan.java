package io.sharegpu.core.preemption;

import io.sharegpu.core.ledger.Allocation;
import java.util.ArrayList;
import java.util.List;

/**
 * The answer of {@link VictimSelector#select} for one node: the pods to evict, or why no eviction
 * lets the pod fit there (the extender then drops the node from the preemption candidates).
 */
public sealed interface PreemptionPlan permits PreemptionPlan.Evict, PreemptionPlan.Impossible {

  /** Returns the node the plan is for. */
  String node();

  /** Returns true when evicting {@link Evict#victims} lets the pod fit. */
  boolean possible();

  /**
   * Evicting these pods lets the pod fit.
   *
   * @param node the node
   * @param victims the pods to evict, in the order they were offered; empty when the pod fits
   *     already
   * @param cost what evicting them costs; no other set of the offered candidates costs less
   * @param preemptorAllocation where the pod would go once they are gone (state reserved, not
   *     committed): the GPUs the victims free
   */
  record Evict(
      String node,
      List<PreemptionCandidate> victims,
      VictimSetCost cost,
      Allocation preemptorAllocation)
      implements PreemptionPlan {

    public Evict {
      victims = List.copyOf(victims);
    }

    @Override
    public boolean possible() {
      return true;
    }

    /** Returns the victims' UIDs, in order. */
    public List<String> victimUids() {
      List<String> out = new ArrayList<>(victims.size());
      for (PreemptionCandidate v : victims) {
        out.add(v.podUid());
      }
      return out;
    }
  }

  /**
   * No set of the offered candidates makes room for the pod on this node.
   *
   * @param node the node
   * @param reason one line, e.g. {@code needs 2 idle GPUs the pod may use; evicting pods of
   *     priority below 100 can free at most 1}
   */
  record Impossible(String node, String reason) implements PreemptionPlan {

    @Override
    public boolean possible() {
      return false;
    }
  }
}
