package io.sharegpu.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * {@code mix}: a pod list with a chosen share of pods without GPUs. Keeps every pod with GPUs of
 * {@code --pods}, then draws pods without GPUs at random (with replacement) from those of {@code
 * --cpu-pool} (default: {@code --pods}) until they are {@code --cpu-share} of all pods by count.
 * Drawn rows keep their CPU and memory and get the name {@code <name>-m<k>}. Example: the default
 * list's 7,064 GPU pods with {@code --cpu-share 0.25} get 2,355 pods without GPUs.
 */
final class MixCommand {
  private MixCommand() {}

  static void run(Map<String, String> opts, PrintStream out, PrintStream err) throws IOException {
    Path pods = Path.of(Main.required(opts, "pods"));
    Path pool = Path.of(opts.getOrDefault("cpu-pool", pods.toString()));
    Path target = Path.of(Main.required(opts, "out"));
    double share;
    try {
      share = Double.parseDouble(Main.required(opts, "cpu-share"));
    } catch (NumberFormatException e) {
      throw new Main.UsageException("--cpu-share must be a number between 0 and 1");
    }
    if (!(share >= 0 && share < 1)) {
      throw new Main.UsageException("--cpu-share must be at least 0 and below 1");
    }
    long seed = Main.integer(opts, "seed", 1);
    List<String> lines = Files.readAllLines(pods, StandardCharsets.UTF_8);
    if (lines.isEmpty()) {
      throw new IOException(pods + " is empty");
    }
    String header = lines.get(0);
    int numGpu = column(header, "num_gpu", pods);
    List<String> out1 = new ArrayList<>();
    out1.add(header);
    for (String l : lines.subList(1, lines.size())) {
      if (!l.isBlank() && !isCpuOnly(l, numGpu)) {
        out1.add(l);
      }
    }
    int gpuPods = out1.size() - 1;
    List<String> poolLines = Files.readAllLines(pool, StandardCharsets.UTF_8);
    int poolNumGpu = column(poolLines.get(0), "num_gpu", pool);
    List<String> cpuOnly = new ArrayList<>();
    for (String l : poolLines.subList(1, poolLines.size())) {
      if (!l.isBlank() && isCpuOnly(l, poolNumGpu)) {
        cpuOnly.add(l);
      }
    }
    int wanted = (int) Math.round(share * gpuPods / (1 - share));
    if (wanted > 0 && cpuOnly.isEmpty()) {
      throw new IOException(pool + " has no pod without GPUs to draw from");
    }
    if (!poolLines.get(0).equals(header)) {
      throw new IOException(pool + " and " + pods + " have different columns");
    }
    Random random = new Random(seed);
    for (int k = 0; k < wanted; k++) {
      String row = cpuOnly.get(random.nextInt(cpuOnly.size()));
      int comma = row.indexOf(',');
      out1.add(row.substring(0, comma) + "-m" + k + row.substring(comma));
    }
    Files.write(target, out1, StandardCharsets.UTF_8);
    out.printf(
        Locale.ROOT,
        "%s: %d pods with GPUs, %d without (%.1f%% by count), seed %d%n",
        target,
        gpuPods,
        wanted,
        100.0 * wanted / (gpuPods + wanted),
        seed);
  }

  private static int column(String header, String name, Path file) throws IOException {
    String[] cols = header.split(",", -1);
    for (int i = 0; i < cols.length; i++) {
      if (cols[i].strip().equalsIgnoreCase(name)) {
        return i;
      }
    }
    throw new IOException(file + " has no column " + name);
  }

  private static boolean isCpuOnly(String line, int numGpu) {
    String[] cells = line.split(",", -1);
    return numGpu < cells.length && cells[numGpu].strip().equals("0");
  }
}
