package io.sharegpu.dra.allocate;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.sharegpu.dra.DraNames;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test claims. */
final class Claims {
  private Claims() {}

  static DeviceRequest share(String name, int milli, String memory) {
    Map<String, Quantity> r = new LinkedHashMap<>();
    r.put(DraNames.COMPUTE, new Quantity(Integer.toString(milli)));
    if (memory != null) {
      r.put(DraNames.MEMORY, new Quantity(memory));
    }
    return request(name, DraNames.DEVICE_CLASS, 1, r);
  }

  static DeviceRequest whole(String name, long count) {
    return request(
        name, DraNames.DEVICE_CLASS, count, Map.of(DraNames.COMPUTE, new Quantity("1000")));
  }

  static DeviceRequest request(
      String name, String deviceClass, long count, Map<String, Quantity> capacity) {
    return new DeviceRequestBuilder()
        .withName(name)
        .withNewExactly()
        .withDeviceClassName(deviceClass)
        .withCount(count)
        .withNewCapacity()
        .withRequests(capacity)
        .endCapacity()
        .endExactly()
        .build();
  }

  static ResourceClaim claim(String name, DeviceRequest... requests) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ns")
        .withUid("uid-" + name)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .withRequests(Arrays.asList(requests))
        .endDevices()
        .endSpec()
        .build();
  }

  /** {@code claim} allocated on {@code pool/device} consuming compute and memory (null: none). */
  static ResourceClaim allocated(
      ResourceClaim claim, String pool, String device, String compute, String memory) {
    var result =
        new DeviceRequestAllocationResultBuilder()
            .withRequest(claim.getSpec().getDevices().getRequests().get(0).getName())
            .withDriver(DraNames.DRIVER)
            .withPool(pool)
            .withDevice(device)
            .withShareID("1b4e28ba-2fa1-11d2-883f-0016d3cca427");
    if (compute != null) {
      result.withConsumedCapacity(
          Map.of(DraNames.COMPUTE, new Quantity(compute), DraNames.MEMORY, new Quantity(memory)));
    }
    return new ResourceClaimBuilder(claim)
        .withNewStatus()
        .withNewAllocation()
        .withNewDevices()
        .withResults(List.of(result.build()))
        .endDevices()
        .endAllocation()
        .endStatus()
        .build();
  }
}
