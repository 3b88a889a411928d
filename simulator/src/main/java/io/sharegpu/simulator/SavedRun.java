package io.sharegpu.simulator;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One seed of one policy on one pod list, read back from the JSON that {@code compare --json} and
 * {@code replay --json} write ({@link Summary#toJson}). The per-seed curve is not saved, so it
 * reads as NaN.
 */
record SavedRun(String policy, String list, SeedResult result) {

  private static final Pattern RESULT =
      Pattern.compile("\"policy\"\\s*:\\s*\"([^\"]*)\"\\s*,\\s*\"pods\"\\s*:\\s*\"([^\"]*)\"");
  private static final Pattern PER_SEED = Pattern.compile("\"perSeed\"\\s*:\\s*\\[");
  private static final Pattern OBJECT = Pattern.compile("\\{([^{}]*)\\}");
  private static final Pattern FIELD = Pattern.compile("\"(\\w+)\"\\s*:\\s*(null|[-+0-9.eE]+)");

  private static final Pattern NODE_COUNT = Pattern.compile("^\\{\\s*\"nodeCount\"\\s*:\\s*(\\d+)");

  /** The node count {@code compare --json} saves at the top; 0 when the file does not say. */
  static int nodeCount(String json) {
    Matcher m = NODE_COUNT.matcher(json);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  /** Every seed of every result in the document; {@code file} names it in errors. */
  static List<SavedRun> parse(String json, String file) throws IOException {
    List<SavedRun> out = new ArrayList<>();
    Matcher r = RESULT.matcher(json);
    List<int[]> spans = new ArrayList<>();
    List<String[]> names = new ArrayList<>();
    while (r.find()) {
      spans.add(new int[] {r.end(), 0});
      names.add(new String[] {r.group(1), r.group(2)});
    }
    if (spans.isEmpty()) {
      throw new IOException(file + " holds no compare or replay results");
    }
    for (int i = 0; i < spans.size(); i++) {
      int from = spans.get(i)[0];
      int to = i + 1 < spans.size() ? spans.get(i + 1)[0] : json.length();
      String segment = json.substring(from, to);
      Matcher p = PER_SEED.matcher(segment);
      if (!p.find()) {
        throw new IOException(
            file + ": " + names.get(i)[0] + " on " + names.get(i)[1] + " has no perSeed runs");
      }
      Matcher o = OBJECT.matcher(segment);
      o.region(p.end(), segment.length());
      while (o.find()) {
        out.add(new SavedRun(names.get(i)[0], names.get(i)[1], seed(o.group(1), file)));
      }
    }
    return out;
  }

  private static SeedResult seed(String body, String file) throws IOException {
    Map<String, Double> f = new HashMap<>();
    Matcher m = FIELD.matcher(body);
    while (m.find()) {
      f.put(m.group(1), m.group(2).equals("null") ? Double.NaN : Double.parseDouble(m.group(2)));
    }
    for (String key : List.of("seed", "unallocatedGpuPctAt100")) {
      if (!f.containsKey(key)) {
        throw new IOException(file + ": a perSeed run without " + key);
      }
    }
    double[] curve = new double[Replay.CURVE_TO - Replay.CURVE_FROM + 1];
    Arrays.fill(curve, Double.NaN);
    return new SeedResult(
        f.get("seed").longValue(),
        (int) get(f, "pods", 0),
        (int) get(f, "placed", 0),
        (int) get(f, "failed", 0),
        f.get("unallocatedGpuPctAt100"),
        get(f, "allocationRatioPctAt100", Double.NaN),
        get(f, "fragmentationRatePctAt80", Double.NaN),
        get(f, "emptyGpuPctAt50", Double.NaN),
        (int) get(f, "nodesTouchedAt50", -1),
        get(f, "emptyGpuPctAt100", Double.NaN),
        (int) get(f, "nodesTouchedAt100", -1),
        get(f, "cpuStrandedPctAt100", Double.NaN),
        get(f, "memoryStrandedPctAt100", Double.NaN),
        curve,
        (long) get(f, "millis", 0));
  }

  private static double get(Map<String, Double> f, String key, double otherwise) {
    Double v = f.get(key);
    return v == null || v.isNaN() ? otherwise : v;
  }
}
