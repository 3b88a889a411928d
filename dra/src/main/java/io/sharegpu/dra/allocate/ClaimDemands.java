package io.sharegpu.dra.allocate;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.dra.DraNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pod's ResourceClaims as one {@link PodDemand}: each request of our DeviceClass becomes one
 * "container" of the demand, named {@code <claim>/<request>}. A request asking {@code compute}
 * below 1000 is a share of one GPU (count 1) and must ask {@code memory} too (DRA would otherwise
 * consume the device's default, its whole memory); a request asking 1000 (or no compute) is {@code
 * count} whole GPUs. Pure.
 */
public final class ClaimDemands {
  private ClaimDemands() {}

  /** The outcome: a demand, or why the claims are not ours to place. */
  public sealed interface Result permits Demand, NotOurs, Invalid {}

  /**
   * The demand, and for each container name the claim and request it came from.
   *
   * @param demand the pod's demand
   * @param requests container name → (claim name, request name)
   */
  public record Demand(PodDemand demand, Map<String, RequestRef> requests) implements Result {
    public Demand {
      requests = Map.copyOf(requests);
    }
  }

  /** None of the claims asks for our DeviceClass. */
  public record NotOurs() implements Result {}

  /** The claims ask for something this allocator cannot place; the reason says what. */
  public record Invalid(String reason) implements Result {}

  /** A request of a claim. */
  public record RequestRef(String claim, String request) {}

  /** Maps the claims of pod {@code podKey} (UID {@code podUid}). */
  public static Result of(String podKey, String podUid, List<ResourceClaim> claims) {
    List<GpuDemand> containers = new ArrayList<>();
    Map<String, RequestRef> refs = new LinkedHashMap<>();
    for (ResourceClaim claim : claims) {
      String claimName = claim.getMetadata().getName();
      if (claim.getSpec() == null || claim.getSpec().getDevices() == null) {
        continue;
      }
      List<DeviceRequest> requests = claim.getSpec().getDevices().getRequests();
      if (requests == null) {
        continue;
      }
      for (DeviceRequest r : requests) {
        ExactDeviceRequest exact = r.getExactly();
        if (exact == null) {
          if (r.getFirstAvailable() != null && !r.getFirstAvailable().isEmpty()) {
            return new Invalid(
                "claim "
                    + claimName
                    + " request "
                    + r.getName()
                    + ": firstAvailable is not supported");
          }
          continue;
        }
        if (!DraNames.DEVICE_CLASS.equals(exact.getDeviceClassName())) {
          if (!containers.isEmpty() || hasOurs(claims)) {
            return new Invalid(
                "claim "
                    + claimName
                    + " request "
                    + r.getName()
                    + " asks for DeviceClass "
                    + exact.getDeviceClassName()
                    + " beside "
                    + DraNames.DEVICE_CLASS
                    + ": one allocator must place the whole pod");
          }
          continue;
        }
        String where = "claim " + claimName + " request " + r.getName() + ": ";
        if (exact.getAllocationMode() != null && !"ExactCount".equals(exact.getAllocationMode())) {
          return new Invalid(
              where + "allocationMode " + exact.getAllocationMode() + " is not supported");
        }
        if (exact.getSelectors() != null && !exact.getSelectors().isEmpty()) {
          return new Invalid(where + "CEL selectors are not evaluated by ShareGPU's allocator");
        }
        if (Boolean.TRUE.equals(exact.getAdminAccess())) {
          return new Invalid(where + "adminAccess is not supported");
        }
        long count = exact.getCount() == null ? 1 : exact.getCount();
        Map<String, Quantity> asked =
            exact.getCapacity() == null || exact.getCapacity().getRequests() == null
                ? Map.of()
                : exact.getCapacity().getRequests();
        for (String name : asked.keySet()) {
          if (!DraNames.COMPUTE.equals(name) && !DraNames.MEMORY.equals(name)) {
            return new Invalid(where + "unknown capacity " + name);
          }
        }
        long milli = DraInventory.number(asked.get(DraNames.COMPUTE), 1000);
        long mib = DraInventory.mebibytes(asked.get(DraNames.MEMORY), 0);
        String container = claimName + "/" + r.getName();
        GpuDemand d;
        try {
          if (milli < 1000) {
            if (count != 1) {
              return new Invalid(where + "a share (compute " + milli + ") must have count 1");
            }
            if (mib == 0) {
              return new Invalid(
                  where
                      + "a share must ask memory: without it DRA consumes the device's whole memory");
            }
            d = GpuDemand.share(container, (int) Math.max(1, milli), mib);
          } else if (milli == 1000) {
            d = GpuDemand.whole(container, (int) count, mib * count);
          } else {
            return new Invalid(where + "compute " + milli + " is more than one GPU (1000)");
          }
        } catch (IllegalArgumentException e) {
          return new Invalid(where + e.getMessage());
        }
        containers.add(d);
        refs.put(container, new RequestRef(claimName, r.getName()));
      }
    }
    if (containers.isEmpty()) {
      return new NotOurs();
    }
    return new Demand(
        new PodDemand(podKey, podUid, containers, Set.of(), Set.of(), Set.of(), 0, 0), refs);
  }

  private static boolean hasOurs(List<ResourceClaim> claims) {
    for (ResourceClaim c : claims) {
      if (c.getSpec() == null || c.getSpec().getDevices() == null) {
        continue;
      }
      List<DeviceRequest> rs = c.getSpec().getDevices().getRequests();
      if (rs == null) {
        continue;
      }
      for (DeviceRequest r : rs) {
        if (r.getExactly() != null
            && DraNames.DEVICE_CLASS.equals(r.getExactly().getDeviceClassName())) {
          return true;
        }
      }
    }
    return false;
  }
}
