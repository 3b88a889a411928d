package io.sharegpu.agent.gpu;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the GPUs through NVML. A GPU whose calls fail (fallen off the bus, needs a reset) is
 * reported unhealthy with what was last known of it, so the extender stops placing pods there; a
 * failing MIG query on a MIG-enabled GPU likewise marks its instances unhealthy.
 */
public final class NvmlInventory implements GpuInventory {

  private static final Logger log = LoggerFactory.getLogger(NvmlInventory.class);

  private static final int MEMORY_V2_SIZE = 40;
  private static final int MEMORY_V2_VERSION = MEMORY_V2_SIZE | (2 << 24);
  private static final int PROCESS_INFO_SIZE = 24;
  private static final long NVML_VALUE_NOT_AVAILABLE = -1L;
  private static final Pattern MIG_PROFILE = Pattern.compile("MIG\\s+(\\d+g\\.\\d+gb)");

  private final NvmlLibrary nvml;
  private final String driverVersion;

  /** Last device seen at each index, reported unhealthy when the index stops answering. */
  private final Map<Integer, List<GpuDevice>> lastSeen = new HashMap<>();

  NvmlInventory(NvmlLibrary nvml) {
    this.nvml = nvml;
    check(nvml.nvmlInit_v2(), "nvmlInit_v2");
    byte[] buffer = new byte[96];
    check(nvml.nvmlSystemGetDriverVersion(buffer, buffer.length), "nvmlSystemGetDriverVersion");
    this.driverVersion = string(buffer);
  }

  /**
   * Loads {@code libnvidia-ml.so.1} and initialises NVML.
   *
   * @throws GpuDiscoveryException when the library cannot be loaded or NVML does not initialise
   */
  public static NvmlInventory load() {
    NvmlLibrary library;
    try {
      // The driver's stable ABI name; containers of the NVIDIA runtime may lack the unversioned
      // .so.
      library = Native.load("libnvidia-ml.so.1", NvmlLibrary.class);
    } catch (UnsatisfiedLinkError e) {
      try {
        library = Native.load("nvidia-ml", NvmlLibrary.class);
      } catch (UnsatisfiedLinkError e2) {
        String reason = String.join(" ", String.valueOf(e.getMessage()).lines().limit(2).toList());
        throw new GpuDiscoveryException(
            "cannot load libnvidia-ml.so.1 (NVIDIA driver library): " + reason, e);
      }
    }
    try {
      return new NvmlInventory(library);
    } catch (NvmlCallException e) {
      throw new GpuDiscoveryException("NVML did not initialise: " + e.getMessage(), e);
    }
  }

  @Override
  public String source() {
    return "nvml";
  }

  @Override
  public synchronized GpuSnapshot snapshot() {
    IntByReference count = new IntByReference();
    try {
      check(nvml.nvmlDeviceGetCount_v2(count), "nvmlDeviceGetCount_v2");
    } catch (NvmlCallException e) {
      throw new GpuDiscoveryException("NVML cannot count GPUs: " + e.getMessage(), e);
    }
    List<GpuDevice> devices = new ArrayList<>();
    List<GpuProcess> processes = new ArrayList<>();
    for (int index = 0; index < count.getValue(); index++) {
      try {
        Pointer handle = handle(index);
        List<Pointer> handles = new ArrayList<>();
        List<GpuDevice> found = readGpu(index, handle, handles);
        lastSeen.put(index, found);
        devices.addAll(found);
        for (int i = 0; i < found.size(); i++) {
          processes.addAll(processes(handles.get(i), found.get(i).uuid()));
        }
      } catch (NvmlCallException e) {
        List<GpuDevice> known = lastSeen.getOrDefault(index, List.of());
        log.warn(
            "GPU {}: {}; reporting {} device(s) unhealthy", index, e.getMessage(), known.size());
        known.forEach(device -> devices.add(device.unhealthy()));
      }
    }
    lastSeen.keySet().removeIf(index -> index >= count.getValue());
    return new GpuSnapshot(driverVersion, devices, processes);
  }

  private Pointer handle(int index) {
    PointerByReference handle = new PointerByReference();
    check(nvml.nvmlDeviceGetHandleByIndex_v2(index, handle), "nvmlDeviceGetHandleByIndex_v2");
    return handle.getValue();
  }

  /** Returns the full GPU, or its MIG instances in MIG mode; adds their handles to {@code out}. */
  private List<GpuDevice> readGpu(int index, Pointer handle, List<Pointer> out) {
    String uuid = uuid(handle);
    String model = name(handle);
    long[] memory = memoryV2(handle);
    if (migEnabled(handle)) {
      return readMigInstances(index, handle, uuid, model, out);
    }
    out.add(handle);
    return List.of(GpuDevice.whole(uuid, index, model, memory[0], memory[1], utilization(handle)));
  }

  private List<GpuDevice> readMigInstances(
      int index, Pointer parent, String parentUuid, String model, List<Pointer> out) {
    IntByReference max = new IntByReference();
    check(nvml.nvmlDeviceGetMaxMigDeviceCount(parent, max), "nvmlDeviceGetMaxMigDeviceCount");
    List<GpuDevice> instances = new ArrayList<>();
    for (int i = 0; i < max.getValue(); i++) {
      PointerByReference ref = new PointerByReference();
      int rc = nvml.nvmlDeviceGetMigDeviceHandleByIndex(parent, i, ref);
      if (rc == NvmlLibrary.NVML_ERROR_NOT_FOUND) {
        continue;
      }
      check(rc, "nvmlDeviceGetMigDeviceHandleByIndex");
      Pointer mig = ref.getValue();
      long[] memory = memoryV2(mig);
      int slices = computeSlices(mig);
      String profile = migProfile(name(mig), slices, memory[0]);
      instances.add(
          new GpuDevice(
              uuid(mig),
              index,
              model,
              memory[0],
              memory[1],
              null,
              MigProfiles.computeMilli(slices, max.getValue()),
              profile,
              parentUuid,
              true));
      out.add(mig);
    }
    return instances;
  }

  private boolean migEnabled(Pointer handle) {
    IntByReference current = new IntByReference();
    IntByReference pending = new IntByReference();
    int rc = nvml.nvmlDeviceGetMigMode(handle, current, pending);
    if (rc == NvmlLibrary.NVML_ERROR_NOT_SUPPORTED) {
      return false;
    }
    check(rc, "nvmlDeviceGetMigMode");
    return current.getValue() == 1;
  }

  private int computeSlices(Pointer mig) {
    try (Memory attributes = new Memory(40)) {
      attributes.clear();
      check(nvml.nvmlDeviceGetAttributes_v2(mig, attributes), "nvmlDeviceGetAttributes_v2");
      return attributes.getInt(7 * 4L);
    }
  }

  private static String migProfile(String name, int slices, long memoryBytes) {
    Matcher m = MIG_PROFILE.matcher(name);
    if (m.find()) {
      return m.group(1);
    }
    return slices + "g." + Math.round(memoryBytes / 1e9) + "gb";
  }

  /** Returns {total, used} bytes from {@code nvmlDeviceGetMemoryInfo_v2}. */
  private long[] memoryV2(Pointer handle) {
    try (Memory memory = new Memory(MEMORY_V2_SIZE)) {
      memory.clear();
      memory.setInt(0, MEMORY_V2_VERSION);
      check(nvml.nvmlDeviceGetMemoryInfo_v2(handle, memory), "nvmlDeviceGetMemoryInfo_v2");
      return new long[] {memory.getLong(8), memory.getLong(32)};
    }
  }

  private @Nullable Integer utilization(Pointer handle) {
    try (Memory rates = new Memory(8)) {
      rates.clear();
      int rc = nvml.nvmlDeviceGetUtilizationRates(handle, rates);
      if (rc == NvmlLibrary.NVML_ERROR_NOT_SUPPORTED) {
        return null;
      }
      check(rc, "nvmlDeviceGetUtilizationRates");
      return rates.getInt(0);
    }
  }

  private List<GpuProcess> processes(Pointer handle, String deviceUuid) {
    IntByReference count = new IntByReference(0);
    int rc = nvml.nvmlDeviceGetComputeRunningProcesses_v3(handle, count, Pointer.NULL);
    if (rc == NvmlLibrary.NVML_SUCCESS || count.getValue() == 0) {
      return List.of();
    }
    if (rc != NvmlLibrary.NVML_ERROR_INSUFFICIENT_SIZE) {
      log.debug("{}: no process list: {}", deviceUuid, nvml.nvmlErrorString(rc));
      return List.of();
    }
    int capacity = count.getValue() + 8; // room for processes starting between the two calls
    try (Memory infos = new Memory((long) capacity * PROCESS_INFO_SIZE)) {
      infos.clear();
      count.setValue(capacity);
      rc = nvml.nvmlDeviceGetComputeRunningProcesses_v3(handle, count, infos);
      if (rc != NvmlLibrary.NVML_SUCCESS) {
        log.debug("{}: no process list: {}", deviceUuid, nvml.nvmlErrorString(rc));
        return List.of();
      }
      List<GpuProcess> processes = new ArrayList<>();
      for (int i = 0; i < count.getValue(); i++) {
        long offset = (long) i * PROCESS_INFO_SIZE;
        long used = infos.getLong(offset + 8);
        processes.add(
            new GpuProcess(
                infos.getInt(offset), deviceUuid, used == NVML_VALUE_NOT_AVAILABLE ? 0 : used));
      }
      return processes;
    }
  }

  private String uuid(Pointer handle) {
    byte[] buffer = new byte[96];
    check(nvml.nvmlDeviceGetUUID(handle, buffer, buffer.length), "nvmlDeviceGetUUID");
    return string(buffer);
  }

  private String name(Pointer handle) {
    byte[] buffer = new byte[96];
    check(nvml.nvmlDeviceGetName(handle, buffer, buffer.length), "nvmlDeviceGetName");
    return string(buffer);
  }

  private void check(int rc, String call) {
    if (rc != NvmlLibrary.NVML_SUCCESS) {
      throw new NvmlCallException(call + " failed: " + nvml.nvmlErrorString(rc) + " (" + rc + ")");
    }
  }

  private static String string(byte[] buffer) {
    int end = 0;
    while (end < buffer.length && buffer[end] != 0) {
      end++;
    }
    return new String(buffer, 0, end, StandardCharsets.US_ASCII);
  }

  @Override
  public void close() {
    nvml.nvmlShutdown();
  }

  /** An NVML call returned an error. */
  static final class NvmlCallException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NvmlCallException(String message) {
      super(message);
    }
  }
}
