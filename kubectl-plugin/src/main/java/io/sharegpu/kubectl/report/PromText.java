package io.sharegpu.kubectl.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the Prometheus text exposition format: {@code name{a="x",b="y"} 1.5e9} gives a sample named
 * {@code name} with labels {@code {a=x, b=y}} and value 1.5e9. Comments, blank lines and timestamps
 * are skipped, so are values Java cannot read (+Inf); label values may hold escaped {@code \"},
 * {@code \\} and {@code \n}.
 */
public final class PromText {

  /** One sample. */
  public record Sample(String name, Map<String, String> labels, double value) {
    public Sample {
      labels = Map.copyOf(labels);
    }

    /** Returns the label's value, empty when absent. */
    public String label(String key) {
      return labels.getOrDefault(key, "");
    }
  }

  private PromText() {}

  /** Returns every sample of {@code text}; lines that do not parse are skipped. */
  public static List<Sample> parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Sample s = parseLine(line);
      if (s != null) {
        out.add(s);
      }
    }
    return out;
  }

  private static Sample parseLine(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    String name = line.substring(0, i);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (i < line.length() && line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
          return null;
        }
        String key = line.substring(i, eq).strip();
        StringBuilder value = new StringBuilder();
        int j = eq + 2;
        for (; j < line.length() && line.charAt(j) != '"'; j++) {
          char c = line.charAt(j);
          if (c == '\\' && j + 1 < line.length()) {
            char n = line.charAt(++j);
            value.append(n == 'n' ? '\n' : n);
          } else {
            value.append(c);
          }
        }
        labels.put(key, value.toString());
        i = j + 1;
        if (i < line.length() && line.charAt(i) == ',') {
          i++;
        }
      }
      i++;
    }
    String[] rest = line.substring(Math.min(i, line.length())).strip().split("\\s+");
    if (name.isEmpty() || rest.length == 0 || rest[0].isEmpty()) {
      return null;
    }
    try {
      return new Sample(name, labels, Double.parseDouble(rest[0]));
    } catch (NumberFormatException e) {
      return null; // +Inf, -Inf (histogram buckets) and junk: not needed here
    }
  }
}
