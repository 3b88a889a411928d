package io.sharegpu.agent.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The fallback when NVML cannot be loaded: parses {@code nvidia-smi --query-gpu=...} (CSV), {@code
 * nvidia-smi -L} (MIG instances) and {@code --query-compute-apps}. A GPU whose fields read as
 * errors ({@code [GPU requires reset]}, {@code [Unknown Error]}) is reported unhealthy. MIG memory
 * comes from the profile name (decimal GB, so never more than the real size) and each MIG
 * instance's compute share assumes 7 slices per GPU; NVML gives exact figures.
 */
public final class NvidiaSmiInventory implements GpuInventory {

  /** The fields of {@code --query-gpu}, in this order. */
  public static final String QUERY_FIELDS =
      "index,uuid,name,memory.total,memory.used,driver_version,mig.mode.current,utilization.gpu";

  static final List<String> QUERY_GPU =
      List.of("nvidia-smi", "--query-gpu=" + QUERY_FIELDS, "--format=csv,noheader,nounits");
  static final List<String> LIST = List.of("nvidia-smi", "-L");
  static final List<String> QUERY_APPS =
      List.of(
          "nvidia-smi",
          "--query-compute-apps=pid,process_name,used_memory,gpu_uuid",
          "--format=csv,noheader,nounits");

  private static final long MIB = 1024L * 1024L;
  private static final Pattern GPU_LINE =
      Pattern.compile("^GPU (\\d+): (.+?) \\(UUID: (GPU-[^)]+)\\)\\s*$");
  private static final Pattern MIG_LINE =
      Pattern.compile("^\\s+MIG (\\S+)\\s+Device\\s+(\\d+): \\(UUID: (MIG-[^)]+)\\)\\s*$");

  /** Runs a command and returns its standard output; throws on a non-zero exit. */
  @FunctionalInterface
  public interface CommandRunner {
    String run(List<String> command);
  }

  private final CommandRunner runner;

  public NvidiaSmiInventory(CommandRunner runner) {
    this.runner = runner;
  }

  /**
   * Returns an inventory over the {@code nvidia-smi} on the PATH, checked by one {@code -L} call.
   *
   * @throws GpuDiscoveryException when nvidia-smi is missing or fails
   */
  public static NvidiaSmiInventory onPath() {
    NvidiaSmiInventory inventory = new NvidiaSmiInventory(NvidiaSmiInventory::exec);
    inventory.runner.run(LIST);
    return inventory;
  }

  @Override
  public String source() {
    return "nvidia-smi";
  }

  @Override
  public GpuSnapshot snapshot() {
    String query = runner.run(QUERY_GPU);
    String list = runner.run(LIST);
    List<GpuProcess> processes;
    try {
      processes = parseComputeApps(runner.run(QUERY_APPS));
    } catch (GpuDiscoveryException e) {
      processes = List.of();
    }
    return parse(query, list, processes);
  }

  /** Parses the outputs of the {@code --query-gpu} and {@code -L} calls into a snapshot. */
  static GpuSnapshot parse(String queryCsv, String listOutput, List<GpuProcess> processes) {
    Map<String, List<String[]>> migByParent = parseMigLines(listOutput);
    List<GpuDevice> devices = new ArrayList<>();
    String driver = "";
    for (String line : queryCsv.split("\\R")) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split(",\\s*", -1);
      if (f.length != 8) {
        throw new GpuDiscoveryException(
            "nvidia-smi --query-gpu: expected 8 fields, got " + f.length + ": " + line);
      }
      int index = Integer.parseInt(f[0].trim());
      String uuid = f[1].trim();
      String model = f[2].trim();
      driver = f[5].trim();
      @Nullable Long total = mib(f[3]);
      @Nullable Long used = mib(f[4]);
      boolean healthy = total != null && used != null;
      boolean mig = "Enabled".equalsIgnoreCase(f[6].trim());
      if (mig) {
        for (String[] instance : migByParent.getOrDefault(uuid, List.of())) {
          String profile = instance[0];
          devices.add(
              new GpuDevice(
                  instance[1],
                  index,
                  model,
                  MigProfiles.memoryBytes(profile),
                  0,
                  null,
                  MigProfiles.computeMilli(MigProfiles.slices(profile), MigProfiles.DEFAULT_SLICES),
                  profile,
                  uuid,
                  healthy));
        }
        continue;
      }
      GpuDevice device =
          GpuDevice.whole(
              uuid,
              index,
              model,
              total == null ? 0 : total * MIB,
              used == null ? 0 : used * MIB,
              percent(f[7]));
      devices.add(healthy ? device : device.unhealthy());
    }
    return new GpuSnapshot(driver, devices, processes);
  }

  /** Returns parent UUID → [profile, MIG UUID] from {@code nvidia-smi -L}. */
  static Map<String, List<String[]>> parseMigLines(String listOutput) {
    Map<String, List<String[]>> byParent = new HashMap<>();
    String parent = null;
    for (String line : listOutput.split("\\R")) {
      Matcher gpu = GPU_LINE.matcher(line);
      if (gpu.matches()) {
        parent = gpu.group(3);
        continue;
      }
      Matcher mig = MIG_LINE.matcher(line);
      if (mig.matches() && parent != null) {
        byParent
            .computeIfAbsent(parent, k -> new ArrayList<>())
            .add(new String[] {mig.group(1), mig.group(3)});
      }
    }
    return byParent;
  }

  /**
   * Parses {@code --query-compute-apps=pid,process_name,used_memory,gpu_uuid} (MiB); a process name
   * holding commas is tolerated (pid first, memory and UUID last).
   */
  static List<GpuProcess> parseComputeApps(String csv) {
    List<GpuProcess> processes = new ArrayList<>();
    for (String line : csv.split("\\R")) {
      String[] f = line.split(",\\s*", -1);
      if (f.length < 4 || !f[0].trim().matches("\\d+")) {
        continue;
      }
      @Nullable Long used = mib(f[f.length - 2]);
      processes.add(
          new GpuProcess(
              Integer.parseInt(f[0].trim()),
              f[f.length - 1].trim(),
              used == null ? 0 : used * MIB));
    }
    return processes;
  }

  private static @Nullable Long mib(String field) {
    String v = field.trim();
    return v.matches("\\d+") ? Long.valueOf(v) : null;
  }

  private static @Nullable Integer percent(String field) {
    String v = field.trim();
    return v.matches("\\d+") ? Integer.valueOf(v) : null;
  }

  private static String exec(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output;
      try (InputStream in = process.getInputStream()) {
        output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new GpuDiscoveryException(String.join(" ", command) + " timed out");
      }
      if (process.exitValue() != 0) {
        throw new GpuDiscoveryException(
            String.join(" ", command) + " exited " + process.exitValue() + ": " + output.strip());
      }
      return output;
    } catch (IOException e) {
      throw new GpuDiscoveryException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GpuDiscoveryException("interrupted running " + command.get(0), e);
    }
  }
}
