package io.sharegpu.simulator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Draws how in-process filter + prioritize latency grows with the cluster: one column per {@code
 * latency --json} file (ordered by node count), lines for p50 and p99 (wall clock) and, where the
 * JSON has them, the thread's CPU time p50 and p99, in milliseconds.
 */
final class LatencyScalePlot {

  /** One {@code latency --json} document, the fields the plot uses. */
  record Point(int nodes, int gpusPerNode, String fill, double[] millis) {}

  static final List<String> SERIES = List.of("p50", "p99", "CPU p50", "CPU p99");
  private static final List<String> KEYS =
      List.of("p50Micros", "p99Micros", "cpuP50Micros", "cpuP99Micros");

  private LatencyScalePlot() {}

  /** True when {@code json} is what {@code latency --json} writes. */
  static boolean isLatency(String json) {
    return json.contains("\"inProcess\"");
  }

  /** Reads one {@code latency --json} document. */
  static Point read(String json, String file) throws IOException {
    int nodes = (int) number(json, "nodes", file);
    int gpus = (int) number(json, "gpusPerNode", file);
    Matcher fill = Pattern.compile("\"fill\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
    double[] millis = new double[KEYS.size()];
    for (int i = 0; i < KEYS.size(); i++) {
      Matcher m = Pattern.compile("\"" + KEYS.get(i) + "\"\\s*:\\s*([0-9.eE+-]+)").matcher(json);
      millis[i] = m.find() ? Double.parseDouble(m.group(1)) / 1000.0 : Double.NaN;
    }
    if (Double.isNaN(millis[0]) || Double.isNaN(millis[1])) {
      throw new IOException(file + ": no inProcess p50Micros and p99Micros");
    }
    return new Point(nodes, gpus, fill.find() ? fill.group(1) : "", millis);
  }

  /** Writes the PNG of {@code points}, ordered by node count. */
  static void write(Path png, String title, List<Point> points) throws IOException {
    List<Point> sorted = new ArrayList<>(points);
    sorted.sort(Comparator.comparingInt(Point::nodes));
    List<String> columns = new ArrayList<>();
    for (Point p : sorted) {
      columns.add(String.format(Locale.ROOT, "%,d x %d", p.nodes(), p.gpusPerNode()));
    }
    Map<String, double[]> lines = new LinkedHashMap<>();
    for (int s = 0; s < SERIES.size(); s++) {
      double[] v = new double[sorted.size()];
      boolean any = false;
      for (int i = 0; i < sorted.size(); i++) {
        v[i] = sorted.get(i).millis()[s];
        any |= !Double.isNaN(v[i]);
      }
      if (any) {
        lines.put(SERIES.get(s), v);
      }
    }
    ComparePlot.write(png, title, "filter + prioritize, ms", columns, lines);
  }

  private static double number(String json, String key, String file) throws IOException {
    Matcher m = Pattern.compile("\"" + key + "\"\\s*:\\s*([0-9.eE+-]+)").matcher(json);
    if (!m.find()) {
      throw new IOException(file + ": no \"" + key + "\"");
    }
    return Double.parseDouble(m.group(1));
  }
}
