package io.sharegpu.agent.gpu;

import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Chooses the inventory source: a recorded file when configured, else NVML, else nvidia-smi. */
public final class InventorySources {

  private static final Logger log = LoggerFactory.getLogger(InventorySources.class);

  private InventorySources() {}

  /**
   * Opens the inventory source.
   *
   * @param inventoryFile a recorded inventory to read instead of the hardware
   * @param forceNvidiaSmi skip NVML (to compare the fallback with NVML on one machine)
   * @throws GpuDiscoveryException naming why each source failed when none works
   */
  public static GpuInventory open(Optional<Path> inventoryFile, boolean forceNvidiaSmi) {
    if (inventoryFile.isPresent()) {
      return new InventoryFile(inventoryFile.get());
    }
    String nvmlError = "skipped";
    if (!forceNvidiaSmi) {
      try {
        return NvmlInventory.load();
      } catch (GpuDiscoveryException e) {
        nvmlError = e.getMessage();
        log.warn("NVML unavailable ({}); falling back to nvidia-smi", nvmlError);
      }
    }
    try {
      return NvidiaSmiInventory.onPath();
    } catch (GpuDiscoveryException e) {
      throw new GpuDiscoveryException(
          "no GPU inventory: NVML: "
              + nvmlError
              + "; nvidia-smi: "
              + e.getMessage()
              + ". Run on a node with the NVIDIA driver (NVIDIA container runtime, /dev/nvidia*),"
              + " or set SHAREGPU_AGENT_INVENTORY_FILE to a recorded inventory.",
          e);
    }
  }
}
