package io.sharegpu.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code plot}: draws the curves of JSON files that {@code replay --json} wrote (one policy or
 * several per file), so that runs made elsewhere can be plotted together; or, given the files of
 * {@code latency --json} runs at several cluster sizes, the latency's scale curve ({@link
 * LatencyScalePlot}).
 */
final class PlotCommand {
  private static final Pattern POLICY = Pattern.compile("\"policy\": \"([^\"]+)\"");
  private static final Pattern CURVE = Pattern.compile("\"unallocatedPct\": \\[([^\\]]*)\\]");

  private PlotCommand() {}

  static void run(Map<String, String> opts, PrintStream out, PrintStream err) throws IOException {
    Map<String, double[]> curves = new LinkedHashMap<>();
    List<LatencyScalePlot.Point> latency = new ArrayList<>();
    for (String f : Main.required(opts, "json").split(",")) {
      String json = Files.readString(Path.of(f.trim()), StandardCharsets.UTF_8);
      if (LatencyScalePlot.isLatency(json)) {
        latency.add(LatencyScalePlot.read(json, f));
      } else {
        curves.putAll(read(json, f));
      }
    }
    Path png = Path.of(Main.required(opts, "out"));
    if (!latency.isEmpty()) {
      if (!curves.isEmpty()) {
        throw new Main.UsageException("plot takes either replay or latency JSON files, not both");
      }
      LatencyScalePlot.write(
          png,
          opts.getOrDefault(
              "title", "In-process filter + prioritize by cluster size (" + fills(latency) + ")"),
          latency);
      err.println("wrote " + png);
      return;
    }
    Plot.write(png, opts.getOrDefault("title", "Unallocated GPU vs arrived"), curves);
    err.println("wrote " + png);
  }

  private static String fills(List<LatencyScalePlot.Point> points) {
    return String.join(", ", points.stream().map(LatencyScalePlot.Point::fill).distinct().toList());
  }

  /** Policy → curve, in file order. */
  static Map<String, double[]> read(String json, String file) throws IOException {
    Map<String, double[]> out = new LinkedHashMap<>();
    Matcher p = POLICY.matcher(json);
    Matcher c = CURVE.matcher(json);
    int from = 0;
    while (p.find(from)) {
      if (!c.find(p.end())) {
        throw new IOException(file + ": policy " + p.group(1) + " has no curve");
      }
      String[] cells = c.group(1).split(",");
      double[] v = new double[cells.length];
      for (int i = 0; i < cells.length; i++) {
        String s = cells[i].trim();
        v[i] = s.equals("null") ? Double.NaN : Double.parseDouble(s);
      }
      out.put(p.group(1), v);
      from = c.end();
    }
    if (out.isEmpty()) {
      throw new IOException(file + ": no replay results found");
    }
    return out;
  }
}
