package io.sharegpu.dra.allocate;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.dra.DraNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocates the ResourceClaims of pods held by the {@linkplain DraNames#SCHEDULING_GATE ShareGPU
 * gate} with {@code core}'s placement, then lifts the gate: kube-scheduler then finds every claim
 * allocated, keeps the pod to the node of the claims' node selector, reserves the claims for the
 * pod ({@code status.reservedFor}) and binds it. Its own allocator (first-fit) never runs for these
 * claims.
 *
 * <p>Each call lists the ResourceSlices (of existing nodes that take pods) and ResourceClaims and
 * builds the ledger afresh ({@link DraInventory}), so that allocations by kube-scheduler for other
 * pods count. The pod's own node constraints (node selector, affinity, taints) are not looked at
 * yet. A prototype: one caller at a time; a production controller would keep the ledger from
 * informers and requeue.
 */
public final class ClaimAllocator {
  private static final Logger log = LoggerFactory.getLogger(ClaimAllocator.class);

  /** What became of a pod. */
  public sealed interface Outcome permits Placed, NoFit, Skipped {}

  /** Its claims were allocated on {@code node} and its gate lifted. */
  public record Placed(String node, Allocation allocation) implements Outcome {}

  /** Its claims fit on no node; the pod stays gated. */
  public record NoFit(String reason) implements Outcome {}

  /** Nothing for us to do (not gated, claims missing or not ours, already allocated). */
  public record Skipped(String reason) implements Outcome {}

  private final KubernetesClient client;
  private final PlacementPolicy policy;

  public ClaimAllocator(KubernetesClient client, PlacementPolicy policy) {
    this.client = client;
    this.policy = policy;
  }

  /** Allocates every gated pod of {@code namespace}, oldest first; returns pod name → outcome. */
  public Map<String, Outcome> allocatePending(String namespace) {
    List<Pod> pods = new ArrayList<>(client.pods().inNamespace(namespace).list().getItems());
    pods.sort(
        Comparator.comparing((Pod p) -> p.getMetadata().getCreationTimestamp())
            .thenComparing(p -> p.getMetadata().getName()));
    Map<String, Outcome> out = new java.util.LinkedHashMap<>();
    for (Pod p : pods) {
      if (gated(p)) {
        out.put(p.getMetadata().getName(), allocate(p));
      }
    }
    return out;
  }

  /** Allocates the claims of one gated pod and lifts its gate. */
  public Outcome allocate(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    if (!gated(pod)) {
      return new Skipped(
          "pod " + ns + "/" + name + " has no " + DraNames.SCHEDULING_GATE + " gate");
    }
    List<ResourceClaim> claims = new ArrayList<>();
    for (PodResourceClaim prc : pod.getSpec().getResourceClaims()) {
      String claimName = claimName(pod, prc);
      if (claimName == null) {
        return new Skipped("claim " + prc.getName() + " of " + name + " is not created yet");
      }
      ResourceClaim c =
          client.resources(ResourceClaim.class).inNamespace(ns).withName(claimName).get();
      if (c == null) {
        return new Skipped("claim " + claimName + " of " + name + " does not exist");
      }
      claims.add(c);
    }
    ClaimDemands.Result result =
        ClaimDemands.of(ns + "/" + name, pod.getMetadata().getUid(), claims);
    if (result instanceof ClaimDemands.NotOurs) {
      ungate(pod);
      return new Skipped("no claim of " + name + " asks for " + DraNames.DEVICE_CLASS);
    }
    if (result instanceof ClaimDemands.Invalid invalid) {
      return new NoFit(invalid.reason());
    }
    ClaimDemands.Demand demand = (ClaimDemands.Demand) result;
    boolean anyAllocated = claims.stream().anyMatch(c -> allocated(c));
    if (anyAllocated) {
      if (claims.stream().allMatch(ClaimAllocator::allocated)) {
        ungate(pod);
        return new Skipped("claims of " + name + " are allocated already");
      }
      return new NoFit("some claims of " + name + " are allocated, others not");
    }
    DraInventory inventory =
        DraInventory.of(
            slicesOfSchedulableNodes(),
            client.resources(ResourceClaim.class).inAnyNamespace().list().getItems());
    Ledger ledger = inventory.ledger();
    policy.observe(demand.demand());
    Optional<Allocation> chosen = new Placement(ledger, policy).place(demand.demand());
    if (chosen.isEmpty()) {
      return new NoFit("the claims of " + name + " fit on no node");
    }
    Allocation allocation = chosen.get();
    Map<String, AllocationResult> results =
        ClaimAllocations.of(allocation, demand, inventory, () -> UUID.randomUUID().toString());
    for (ResourceClaim c : claims) {
      AllocationResult r = results.get(c.getMetadata().getName());
      if (r != null) {
        writeAllocation(c, r);
      }
    }
    ungate(pod);
    log.info(
        "allocated the claims of {}/{} on {}: {}", ns, name, allocation.node(), allocation.uuids());
    return new Placed(allocation.node(), allocation);
  }

  /** Adds the finalizer (a plain update, as kube-scheduler does), then writes the status. */
  private void writeAllocation(ResourceClaim claim, AllocationResult allocation) {
    var resource =
        client
            .resources(ResourceClaim.class)
            .inNamespace(claim.getMetadata().getNamespace())
            .withName(claim.getMetadata().getName());
    ResourceClaim withFinalizer =
        resource.edit(
            c -> {
              List<String> f = new ArrayList<>(c.getMetadata().getFinalizers());
              if (!f.contains(DraNames.CLAIM_FINALIZER)) {
                f.add(DraNames.CLAIM_FINALIZER);
              }
              c.getMetadata().setFinalizers(f);
              return c;
            });
    if (withFinalizer.getStatus() == null) {
      withFinalizer.setStatus(new ResourceClaimStatus());
    }
    withFinalizer.getStatus().setAllocation(allocation);
    client.resource(withFinalizer).updateStatus();
  }

  /** The slices of nodes that exist and take new pods (a slice may outlive its node). */
  private List<ResourceSlice> slicesOfSchedulableNodes() {
    Set<String> nodes = new HashSet<>();
    for (Node n : client.nodes().list().getItems()) {
      if (!Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
        nodes.add(n.getMetadata().getName());
      }
    }
    List<ResourceSlice> out = new ArrayList<>();
    for (ResourceSlice s : client.resources(ResourceSlice.class).list().getItems()) {
      if (s.getSpec() != null && nodes.contains(s.getSpec().getNodeName())) {
        out.add(s);
      }
    }
    return out;
  }

  private void ungate(Pod pod) {
    client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .edit(
            p -> {
              p.getSpec()
                  .getSchedulingGates()
                  .removeIf(g -> DraNames.SCHEDULING_GATE.equals(g.getName()));
              return p;
            });
  }

  private static boolean gated(Pod p) {
    return p.getSpec().getSchedulingGates() != null
        && p.getSpec().getSchedulingGates().stream()
            .anyMatch(g -> DraNames.SCHEDULING_GATE.equals(g.getName()));
  }

  private static boolean allocated(ResourceClaim c) {
    return c.getStatus() != null && c.getStatus().getAllocation() != null;
  }

  /** The claim's name: given in the pod, or generated from a template (in the pod's status). */
  private static @Nullable String claimName(Pod pod, PodResourceClaim prc) {
    if (prc.getResourceClaimName() != null) {
      return prc.getResourceClaimName();
    }
    if (pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null) {
      return null;
    }
    for (PodResourceClaimStatus s : pod.getStatus().getResourceClaimStatuses()) {
      if (prc.getName().equals(s.getName())) {
        return s.getResourceClaimName();
      }
    }
    return null;
  }
}
