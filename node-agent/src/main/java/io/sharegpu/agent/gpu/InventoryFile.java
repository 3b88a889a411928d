package io.sharegpu.agent.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A recorded inventory: the JSON the agent prints with {@code --print-inventory}, read back instead
 * of NVML (tests and demos). The file is read again at each snapshot, so editing it simulates GPUs
 * appearing, disappearing or turning unhealthy.
 *
 * <pre>{"source":"nvml","driverVersion":"570.195.03","devices":[{"uuid":"GPU-...","index":0,
 *  "model":"NVIDIA H200","memoryTotalBytes":150754820096,"memoryUsedBytes":0,
 *  "utilizationPercent":0,"computeMilli":1000,"healthy":true}],"processes":[]}</pre>
 */
public final class InventoryFile implements GpuInventory {

  private static final JsonMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private final Path file;

  public InventoryFile(Path file) {
    this.file = file;
    snapshot();
  }

  @Override
  public String source() {
    return "file";
  }

  @Override
  public GpuSnapshot snapshot() {
    try {
      Recorded recorded = JSON.readValue(Files.readString(file), Recorded.class);
      return new GpuSnapshot(recorded.driverVersion(), recorded.devices(), recorded.processes());
    } catch (IOException | JacksonException | IllegalArgumentException | NullPointerException e) {
      throw new GpuDiscoveryException(
          "cannot read inventory file " + file + ": " + e.getMessage(), e);
    }
  }

  /** Returns the JSON form of a snapshot (what {@code --print-inventory} prints). */
  public static String toJson(String source, GpuSnapshot snapshot) {
    return JSON.writeValueAsString(
        new Recorded(source, snapshot.driverVersion(), snapshot.devices(), snapshot.processes()));
  }

  /** The file's shape. */
  record Recorded(
      @org.jspecify.annotations.Nullable String source,
      String driverVersion,
      java.util.List<GpuDevice> devices,
      java.util.List<GpuProcess> processes) {
    Recorded {
      driverVersion = driverVersion == null ? "" : driverVersion;
      devices = devices == null ? java.util.List.of() : devices;
      processes = processes == null ? java.util.List.of() : processes;
    }
  }
}
