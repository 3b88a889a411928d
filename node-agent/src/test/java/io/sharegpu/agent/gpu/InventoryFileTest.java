package io.sharegpu.agent.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.agent.Recorded;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InventoryFileTest {

  @Test
  void readsTheRecordedH200Inventory() {
    GpuSnapshot snapshot = new InventoryFile(Recorded.path("h200-inventory.json")).snapshot();

    assertThat(snapshot.driverVersion()).isEqualTo("580.159.04");
    assertThat(snapshot.devices()).hasSize(1);
    assertThat(snapshot.devices().get(0).memoryMiB()).isEqualTo(143771);
    assertThat(snapshot.devices().get(0).healthy()).isTrue();
  }

  @Test
  void roundTripsWhatPrintInventoryWrites(@TempDir Path dir) throws Exception {
    GpuSnapshot snapshot =
        new GpuSnapshot(
            "580.159.04",
            List.of(
                GpuDevice.whole("GPU-a", 0, "NVIDIA H200", 1L << 30, 1L << 20, 7),
                new GpuDevice(
                    "MIG-b", 1, "NVIDIA H200", 1L << 30, 0, null, 142, "1g.18gb", "GPU-p", false)),
            List.of(new GpuProcess(42, "GPU-a", 1L << 20)));
    Path file = dir.resolve("inventory.json");
    Files.writeString(file, InventoryFile.toJson("nvml", snapshot));

    assertThat(new InventoryFile(file).snapshot()).isEqualTo(snapshot);
  }

  @Test
  void rereadsTheFileAtEachSnapshot(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("inventory.json");
    Files.writeString(
        file, InventoryFile.toJson("file", new GpuSnapshot("1", List.of(), List.of())));
    InventoryFile inventory = new InventoryFile(file);
    GpuSnapshot two =
        new GpuSnapshot(
            "1",
            List.of(
                GpuDevice.whole("GPU-a", 0, "M", 1L << 30, 0, null),
                GpuDevice.whole("GPU-b", 1, "M", 1L << 30, 0, null)),
            List.of());
    Files.writeString(file, InventoryFile.toJson("file", two));

    assertThat(inventory.snapshot().devices()).hasSize(2);
  }

  @Test
  void aBrokenFileIsAClearError(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("inventory.json");
    Files.writeString(file, "{not json");
    assertThatThrownBy(() -> new InventoryFile(file))
        .isInstanceOf(GpuDiscoveryException.class)
        .hasMessageContaining("cannot read inventory file " + file);
  }
}
