package io.sharegpu.dra.allocate;

import static io.sharegpu.dra.allocate.Claims.claim;
import static io.sharegpu.dra.allocate.Claims.share;
import static io.sharegpu.dra.allocate.Claims.whole;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.dra.DraNames;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClaimDemandsTest {

  @Test
  void eachRequestOfOurClassIsOneContainerOfTheDemand() {
    ClaimDemands.Result r =
        ClaimDemands.of(
            "ns/p",
            "uid-p",
            List.of(claim("a", share("gpu", 250, "10Gi")), claim("b", whole("gpus", 2))));

    assertThat(r).isInstanceOf(ClaimDemands.Demand.class);
    ClaimDemands.Demand d = (ClaimDemands.Demand) r;
    assertThat(d.demand().podUid()).isEqualTo("uid-p");
    assertThat(d.demand().containers())
        .containsExactly(GpuDemand.share("a/gpu", 250, 10240), GpuDemand.whole("b/gpus", 2, 0));
    assertThat(d.requests())
        .containsEntry("a/gpu", new ClaimDemands.RequestRef("a", "gpu"))
        .containsEntry("b/gpus", new ClaimDemands.RequestRef("b", "gpus"));
  }

  @Test
  void aRequestWithoutComputeIsAWholeGpu() {
    DeviceRequest r = Claims.request("gpu", DraNames.DEVICE_CLASS, 1, Map.of());

    ClaimDemands.Demand d =
        (ClaimDemands.Demand) ClaimDemands.of("ns/p", "u", List.of(claim("a", r)));

    assertThat(d.demand().containers()).containsExactly(GpuDemand.whole("a/gpu", 1, 0));
  }

  @Test
  void aShareWithoutMemoryIsRefused() {
    ClaimDemands.Result r =
        ClaimDemands.of("ns/p", "u", List.of(claim("a", share("gpu", 250, null))));

    assertThat(r).isInstanceOf(ClaimDemands.Invalid.class);
    assertThat(((ClaimDemands.Invalid) r).reason()).contains("must ask memory");
  }

  @Test
  void aShareOfCountTwoAndUnknownCapacitiesAreRefused() {
    DeviceRequest twoShares =
        Claims.request(
            "gpu",
            DraNames.DEVICE_CLASS,
            2,
            Map.of(DraNames.COMPUTE, new Quantity("500"), DraNames.MEMORY, new Quantity("1Gi")));
    DeviceRequest bandwidth =
        Claims.request("gpu", DraNames.DEVICE_CLASS, 1, Map.of("bandwidth", new Quantity("1")));

    assertThat(ClaimDemands.of("ns/p", "u", List.of(claim("a", twoShares))))
        .isInstanceOf(ClaimDemands.Invalid.class);
    assertThat(ClaimDemands.of("ns/p", "u", List.of(claim("a", bandwidth))))
        .isInstanceOf(ClaimDemands.Invalid.class);
  }

  @Test
  void claimsOfOtherClassesAreNotOursAndAMixIsRefused() {
    DeviceRequest nic = Claims.request("nic", "nic.example.com", 1, Map.of());

    assertThat(ClaimDemands.of("ns/p", "u", List.of(claim("n", nic))))
        .isInstanceOf(ClaimDemands.NotOurs.class);
    assertThat(
            ClaimDemands.of(
                "ns/p", "u", List.of(claim("n", nic), claim("a", share("gpu", 250, "1Gi")))))
        .isInstanceOf(ClaimDemands.Invalid.class);
  }
}
