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
import org.jspecify.annotations.Nullable;

/**
 * {@code mix}: a pod list with a chosen share of pods without GPUs. Keeps every pod with GPUs of
 * {@code --pods}, then draws pods without GPUs at random (with replacement) from those of {@code
 * --cpu-pool} (default: {@code --pods}) until they are {@code --cpu-share} of all pods by count.
 * Drawn rows keep their CPU and memory and get the name {@code <name>-m<k>}; when the pool has
 * other columns than {@code --pods} (the multigpu lists have five, the cpu lists eleven), they are
 * written with the columns of {@code --pods}, which the pool must all have. Example: the default
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
    int[] projection = projection(poolLines.get(0), header, pool, pods);
    Random random = new Random(seed);
    for (int k = 0; k < wanted; k++) {
      String row = project(cpuOnly.get(random.nextInt(cpuOnly.size())), projection);
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

  /**
   * For each column of {@code header}, its index in {@code poolHeader}; null when the headers are
   * the same.
   */
  private static int @Nullable [] projection(String poolHeader, String header, Path pool, Path pods)
      throws IOException {
    if (poolHeader.equals(header)) {
      return null;
    }
    String[] cols = header.split(",", -1);
    int[] out = new int[cols.length];
    for (int i = 0; i < cols.length; i++) {
      try {
        out[i] = column(poolHeader, cols[i].strip(), pool);
      } catch (IOException e) {
        throw new IOException(
            pool + " has no column " + cols[i].strip() + " that " + pods + " has", e);
      }
    }
    return out;
  }

  private static String project(String row, int @Nullable [] projection) {
    if (projection == null) {
      return row;
    }
    String[] cells = row.split(",", -1);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < projection.length; i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(projection[i] < cells.length ? cells[projection[i]] : "");
    }
    return b.toString();
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
