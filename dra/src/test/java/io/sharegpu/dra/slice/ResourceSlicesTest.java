package io.sharegpu.dra.slice;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.dra.DraNames;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceSlicesTest {

  private static GpuStatus gpu(String uuid, int index) {
    return new GpuStatus(uuid, index, "NVIDIA H100 80GB HBM3", 81559);
  }

  private static GpuStatus mig(String uuid, int index, String parent, int milli, long mib) {
    GpuStatus g = new GpuStatus(uuid, index, "NVIDIA H100 80GB HBM3", mib);
    g.setParentUuid(parent);
    g.setMigProfile("3g.40gb");
    g.setComputeMilli(milli);
    return g;
  }

  @Test
  void oneDevicePerGpuAndPerMigInstanceEachInItsOwnSliceOfTheNodesPool() {
    List<ResourceSlice> slices =
        ResourceSlices.forNode(
            "node-a",
            List.of(
                gpu("GPU-aaaa", 0),
                gpu("GPU-bbbb", 1),
                mig("MIG-cccc", 2, "GPU-bbbb", 428, 40192),
                mig("MIG-dddd", 3, "GPU-bbbb", 428, 40192)),
            7);

    // GPU-bbbb is split into MIG instances: only its instances are published
    assertThat(slices).hasSize(3);
    assertThat(slices)
        .extracting(s -> s.getMetadata().getName())
        .containsExactly(
            "node-a-gpu.sharegpu.io-0", "node-a-gpu.sharegpu.io-1", "node-a-gpu.sharegpu.io-2");
    for (ResourceSlice s : slices) {
      assertThat(s.getSpec().getDriver()).isEqualTo(DraNames.DRIVER);
      assertThat(s.getSpec().getNodeName()).isEqualTo("node-a");
      assertThat(s.getSpec().getPool().getName()).isEqualTo("node-a");
      assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(7L);
      assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(3L);
      assertThat(s.getSpec().getDevices()).hasSize(1);
      assertThat(s.getMetadata().getLabels()).containsEntry(ResourceSlices.NODE_LABEL, "node-a");
    }
    assertThat(slices)
        .extracting(s -> s.getSpec().getDevices().get(0).getName())
        .containsExactly("gpu-aaaa", "mig-cccc", "mig-dddd");
  }

  @Test
  void aWholeGpuHasItsAttributesAndConsumableCapacitiesWithRequestPolicies() {
    Device d = ResourceSlices.devices(List.of(gpu("GPU-aaaa", 0))).get(0);

    assertThat(d.getAllowMultipleAllocations()).isTrue();
    assertThat(d.getAttributes().get(DraNames.UUID).getString()).isEqualTo("GPU-aaaa");
    assertThat(d.getAttributes().get(DraNames.MODEL).getString())
        .isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(d.getAttributes().get(DraNames.MEMORY_MIB).getInt()).isEqualTo(81559L);
    assertThat(d.getAttributes().get(DraNames.TYPE).getString()).isEqualTo(DraNames.TYPE_GPU);
    assertThat(d.getAttributes()).doesNotContainKey(DraNames.PARENT_UUID);

    DeviceCapacity compute = d.getCapacity().get(DraNames.COMPUTE);
    assertThat(compute.getValue()).isEqualTo(new Quantity("1000"));
    assertThat(compute.getRequestPolicy().getDefault()).isEqualTo(new Quantity("1000"));
    assertThat(compute.getRequestPolicy().getValidRange().getMin()).isEqualTo(new Quantity("1"));
    assertThat(compute.getRequestPolicy().getValidRange().getMax()).isEqualTo(new Quantity("1000"));
    assertThat(compute.getRequestPolicy().getValidRange().getStep()).isNull();

    DeviceCapacity memory = d.getCapacity().get(DraNames.MEMORY);
    assertThat(memory.getValue()).isEqualTo(new Quantity("81559Mi"));
    assertThat(memory.getRequestPolicy().getDefault()).isEqualTo(new Quantity("81559Mi"));
    assertThat(memory.getRequestPolicy().getValidRange().getStep()).isEqualTo(new Quantity("1Mi"));
  }

  @Test
  void aMigInstanceHasItsOwnComputeAndMemoryAndNamesItsParent() {
    Device d =
        ResourceSlices.devices(
                List.of(gpu("GPU-bbbb", 1), mig("MIG-cccc", 2, "GPU-bbbb", 428, 40192)))
            .get(0);

    assertThat(d.getAttributes().get(DraNames.TYPE).getString()).isEqualTo(DraNames.TYPE_MIG);
    assertThat(d.getAttributes().get(DraNames.PARENT_UUID).getString()).isEqualTo("GPU-bbbb");
    assertThat(d.getAttributes().get(DraNames.MIG_PROFILE).getString()).isEqualTo("3g.40gb");
    assertThat(d.getCapacity().get(DraNames.COMPUTE).getValue()).isEqualTo(new Quantity("428"));
    assertThat(d.getCapacity().get(DraNames.COMPUTE).getRequestPolicy().getValidRange().getMax())
        .isEqualTo(new Quantity("428"));
    assertThat(d.getCapacity().get(DraNames.MEMORY).getValue()).isEqualTo(new Quantity("40192Mi"));
  }

  @Test
  void unhealthyGpusAreLeftOutAndANodeWithoutDevicesKeepsOneEmptySlice() {
    GpuStatus sick = gpu("GPU-aaaa", 0);
    sick.setHealthy(false);

    List<ResourceSlice> slices = ResourceSlices.forNode("node-a", List.of(sick), 2);

    assertThat(slices).hasSize(1);
    assertThat(slices.get(0).getSpec().getDevices()).isEmpty();
    assertThat(slices.get(0).getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
  }

  @Test
  void deviceNamesAreDnsLabelsAndStayUniqueOnANode() {
    List<Device> devices =
        ResourceSlices.devices(
            List.of(
                gpu("MIG-GPU-1234/1/0", 0),
                gpu("MIG-GPU-1234/1.0", 1),
                gpu("GPU-" + "x".repeat(80), 2)));

    assertThat(devices).extracting(Device::getName).doesNotHaveDuplicates();
    for (Device d : devices) {
      assertThat(d.getName()).matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    }
  }

  @Test
  void theDeviceClassSelectsTheDriversDevices() {
    var dc = ResourceSlices.deviceClass();

    assertThat(dc.getMetadata().getName()).isEqualTo(DraNames.DEVICE_CLASS);
    assertThat(dc.getSpec().getSelectors().get(0).getCel().getExpression())
        .isEqualTo("device.driver == \"gpu.sharegpu.io\"");
  }
}
