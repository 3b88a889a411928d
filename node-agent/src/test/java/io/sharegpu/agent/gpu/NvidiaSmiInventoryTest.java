package io.sharegpu.agent.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.agent.Recorded;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NvidiaSmiInventoryTest {

  private static final long MIB = 1024 * 1024;

  @Test
  void parsesTheRecordedH200() {
    GpuSnapshot snapshot =
        NvidiaSmiInventory.parse(
            Recorded.text("nvidia-smi-query-gpu.csv"),
            Recorded.text("nvidia-smi-L.txt"),
            List.of());

    assertThat(snapshot.driverVersion()).isEqualTo("580.159.04");
    assertThat(snapshot.devices())
        .containsExactly(
            GpuDevice.whole(
                "GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7", 0, "NVIDIA H200", 143771 * MIB, 0, 0));
    assertThat(snapshot.totalComputeMilli()).isEqualTo(1000);
    assertThat(snapshot.totalMemoryMiB()).isEqualTo(143771);
  }

  @Test
  void listsMigInstancesInsteadOfTheirParentAndMarksAGpuThatNeedsAResetUnhealthy() {
    GpuSnapshot snapshot =
        NvidiaSmiInventory.parse(
            Recorded.text("nvidia-smi-query-gpu-mig-example.csv"),
            Recorded.text("nvidia-smi-L-mig-example.txt"),
            List.of());

    assertThat(snapshot.devices()).hasSize(3);
    GpuDevice big = snapshot.devices().get(0);
    assertThat(big.uuid()).isEqualTo("MIG-1b2c3d4e-0000-5111-8222-333344445555");
    assertThat(big.parentUuid()).isEqualTo("GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7");
    assertThat(big.migProfile()).isEqualTo("3g.71gb");
    assertThat(big.computeMilli()).isEqualTo(428);
    assertThat(big.memoryMiB()).isEqualTo(71_000_000_000L / MIB);
    assertThat(snapshot.devices().get(1).computeMilli()).isEqualTo(142);
    GpuDevice broken = snapshot.devices().get(2);
    assertThat(broken.uuid()).isEqualTo("GPU-9a4a3d49-7290-df59-cf9f-6a8f2e994bc8");
    assertThat(broken.healthy()).isFalse();
    assertThat(snapshot.healthyComputeMilli()).isEqualTo(570);
    assertThat(snapshot.totalComputeMilli()).isEqualTo(1570);
  }

  @Test
  void parsesTheRecordedComputeAppsUnderMps() {
    List<GpuProcess> processes =
        NvidiaSmiInventory.parseComputeApps(Recorded.text("nvidia-smi-query-compute-apps-mps.csv"));

    assertThat(processes)
        .containsExactly(
            new GpuProcess(548, "GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7", 66 * MIB),
            new GpuProcess(690, "GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7", 628 * MIB),
            new GpuProcess(692, "GPU-624a3d49-7290-df59-cf9f-6a8f2e994bc7", 758 * MIB));
  }

  @Test
  void snapshotRunsTheDocumentedCommands() {
    List<List<String>> calls = new ArrayList<>();
    NvidiaSmiInventory inventory =
        new NvidiaSmiInventory(
            command -> {
              calls.add(command);
              if (command.equals(NvidiaSmiInventory.QUERY_GPU)) {
                return Recorded.text("nvidia-smi-query-gpu.csv");
              }
              if (command.equals(NvidiaSmiInventory.LIST)) {
                return Recorded.text("nvidia-smi-L.txt");
              }
              return Recorded.text("nvidia-smi-query-compute-apps-mps.csv");
            });

    GpuSnapshot snapshot = inventory.snapshot();

    assertThat(calls.get(0))
        .containsExactly(
            "nvidia-smi",
            "--query-gpu=index,uuid,name,memory.total,memory.used,driver_version,mig.mode.current,utilization.gpu",
            "--format=csv,noheader,nounits");
    assertThat(snapshot.processes()).hasSize(3);
  }

  @Test
  void rejectsOutputWithTheWrongNumberOfFields() {
    assertThatThrownBy(() -> NvidiaSmiInventory.parse("0, GPU-x, NVIDIA H200\n", "", List.of()))
        .isInstanceOf(GpuDiscoveryException.class)
        .hasMessageContaining("expected 8 fields");
  }

  @Test
  void failingCommandFailsTheSnapshot() {
    NvidiaSmiInventory inventory =
        new NvidiaSmiInventory(
            command -> {
              throw new GpuDiscoveryException("nvidia-smi exited 9: NVIDIA-SMI has failed");
            });
    assertThatThrownBy(inventory::snapshot).hasMessageContaining("NVIDIA-SMI has failed");
  }
}
