package io.sharegpu.agent.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** NvmlInventory over a fake NVML holding the values recorded on an H200. */
class NvmlInventoryTest {

  private static final long TOTAL = 150754820096L;
  private static final String H200 = "GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7";

  @Test
  void readsAWholeGpuWithTheV2MemoryCallAndItsProcesses() {
    FakeNvml nvml = new FakeNvml();
    NvmlInventory inventory = new NvmlInventory(nvml);

    GpuSnapshot snapshot = inventory.snapshot();

    assertThat(snapshot.driverVersion()).isEqualTo("580.159.04");
    assertThat(snapshot.devices())
        .containsExactly(GpuDevice.whole(H200, 0, "NVIDIA H200", TOTAL, 2404188160L, 37));
    assertThat(snapshot.processes())
        .containsExactly(
            new GpuProcess(528, H200, 69206016L), new GpuProcess(462, H200, 2325741568L));
    assertThat(nvml.memoryVersions).containsOnly(40 | (2 << 24));
  }

  @Test
  void listsMigInstancesWithTheirShare() {
    FakeNvml nvml = new FakeNvml();
    nvml.mig = true;

    GpuSnapshot snapshot = new NvmlInventory(nvml).snapshot();

    assertThat(snapshot.devices()).hasSize(2);
    GpuDevice first = snapshot.devices().get(0);
    assertThat(first.uuid()).isEqualTo("MIG-0");
    assertThat(first.parentUuid()).isEqualTo(H200);
    assertThat(first.migProfile()).isEqualTo("3g.71gb");
    assertThat(first.computeMilli()).isEqualTo(428);
    assertThat(first.utilizationPercent()).isNull();
    assertThat(snapshot.devices().get(1).computeMilli()).isEqualTo(142);
    assertThat(snapshot.totalComputeMilli()).isEqualTo(570);
  }

  @Test
  void aGpuWhoseCallsStartFailingTurnsUnhealthyWithWhatWasKnown() {
    FakeNvml nvml = new FakeNvml();
    NvmlInventory inventory = new NvmlInventory(nvml);
    inventory.snapshot();

    nvml.lost = true;
    GpuSnapshot snapshot = inventory.snapshot();

    assertThat(snapshot.devices())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.uuid()).isEqualTo(H200);
              assertThat(d.healthy()).isFalse();
            });
    assertThat(snapshot.healthyComputeMilli()).isZero();

    nvml.lost = false;
    assertThat(inventory.snapshot().devices().get(0).healthy()).isTrue();
  }

  @Test
  void initFailureIsAnExplainedError() {
    FakeNvml nvml = new FakeNvml();
    nvml.initResult = 9; // NVML_ERROR_DRIVER_NOT_LOADED

    assertThatThrownBy(() -> new NvmlInventory(nvml))
        .hasMessageContaining("nvmlInit_v2 failed: Driver Not Loaded (9)");
  }

  /** One H200 (index 0); optionally in MIG mode with a 3g.71gb and a 1g.18gb instance. */
  static final class FakeNvml implements NvmlLibrary {
    boolean mig;
    boolean lost;
    int initResult = NVML_SUCCESS;
    final Set<Integer> memoryVersions = new HashSet<>();

    private static final Pointer GPU = new Pointer(0x1000);

    private static int put(byte[] buffer, String value) {
      byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(bytes, 0, buffer, 0, bytes.length);
      buffer[bytes.length] = 0;
      return NVML_SUCCESS;
    }

    private static int mig(Pointer device) {
      return (int) (Pointer.nativeValue(device) - 0x2000);
    }

    private int checkLost() {
      return lost ? 15 : NVML_SUCCESS; // NVML_ERROR_GPU_IS_LOST
    }

    @Override
    public int nvmlInit_v2() {
      return initResult;
    }

    @Override
    public int nvmlShutdown() {
      return NVML_SUCCESS;
    }

    @Override
    public String nvmlErrorString(int result) {
      return result == 9 ? "Driver Not Loaded" : result == 15 ? "GPU is lost" : "error " + result;
    }

    @Override
    public int nvmlSystemGetDriverVersion(byte[] version, int length) {
      return put(version, "580.159.04");
    }

    @Override
    public int nvmlDeviceGetCount_v2(IntByReference count) {
      count.setValue(1);
      return NVML_SUCCESS;
    }

    @Override
    public int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device) {
      device.setValue(GPU);
      return checkLost();
    }

    @Override
    public int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length) {
      return device.equals(GPU) ? put(uuid, H200) : put(uuid, "MIG-" + mig(device));
    }

    @Override
    public int nvmlDeviceGetName(Pointer device, byte[] name, int length) {
      if (device.equals(GPU)) {
        return put(name, "NVIDIA H200");
      }
      return put(name, mig(device) == 0 ? "NVIDIA H200 MIG 3g.71gb" : "NVIDIA H200 MIG 1g.18gb");
    }

    @Override
    public int nvmlDeviceGetMemoryInfo_v2(Pointer device, Pointer memory) {
      memoryVersions.add(memory.getInt(0));
      long total = device.equals(GPU) ? TOTAL : mig(device) == 0 ? 71L << 30 : 18L << 30;
      memory.setLong(8, total);
      memory.setLong(16, 644939776L);
      memory.setLong(32, device.equals(GPU) ? 2404188160L : 0);
      memory.setLong(24, total - memory.getLong(32));
      return NVML_SUCCESS;
    }

    @Override
    public int nvmlDeviceGetUtilizationRates(Pointer device, Pointer utilization) {
      if (!device.equals(GPU)) {
        return NVML_ERROR_NOT_SUPPORTED;
      }
      utilization.setInt(0, 37);
      utilization.setInt(4, 12);
      return NVML_SUCCESS;
    }

    @Override
    public int nvmlDeviceGetMigMode(
        Pointer device, IntByReference current, IntByReference pending) {
      current.setValue(mig ? 1 : 0);
      pending.setValue(mig ? 1 : 0);
      return NVML_SUCCESS;
    }

    @Override
    public int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count) {
      count.setValue(7);
      return NVML_SUCCESS;
    }

    @Override
    public int nvmlDeviceGetMigDeviceHandleByIndex(
        Pointer device, int index, PointerByReference migDevice) {
      if (index > 1) {
        return NVML_ERROR_NOT_FOUND;
      }
      migDevice.setValue(new Pointer(0x2000 + index));
      return NVML_SUCCESS;
    }

    @Override
    public int nvmlDeviceGetAttributes_v2(Pointer device, Pointer attributes) {
      attributes.setInt(0, mig(device) == 0 ? 48 : 16);
      attributes.setInt(6 * 4L, mig(device) == 0 ? 3 : 1);
      attributes.setInt(7 * 4L, mig(device) == 0 ? 3 : 1);
      return NVML_SUCCESS;
    }

    @Override
    public int nvmlDeviceGetComputeRunningProcesses_v3(
        Pointer device, IntByReference count, Pointer infos) {
      if (!device.equals(GPU)) {
        count.setValue(0);
        return NVML_SUCCESS;
      }
      if (infos == null || count.getValue() < 2) {
        count.setValue(2);
        return NVML_ERROR_INSUFFICIENT_SIZE;
      }
      infos.setInt(0, 528);
      infos.setLong(8, 69206016L);
      infos.setInt(24, 462);
      infos.setLong(32, 2325741568L);
      count.setValue(2);
      return NVML_SUCCESS;
    }
  }
}
