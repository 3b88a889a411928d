package io.sharegpu.simulator;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads the CSV node and pod lists of the Alibaba GPU trace (cluster-trace-gpu-v2023). Columns are
 * found by header name, so the five-column pod lists and the full ones both read; unknown columns
 * are ignored. Errors name the file and line.
 */
public final class TraceFiles {
  private TraceFiles() {}

  /** Reads a node list ({@code sn,cpu_milli,memory_mib,gpu,model}). */
  public static List<TraceNode> readNodes(Path file) throws IOException {
    List<TraceNode> out = new ArrayList<>();
    read(
        file,
        new String[] {"sn", "cpu_milli", "memory_mib", "gpu"},
        (row, line) ->
            out.add(
                new TraceNode(
                    row.get("sn"),
                    row.number("cpu_milli"),
                    row.number("memory_mib"),
                    (int) row.number("gpu"),
                    row.optional("model"))));
    return out;
  }

  /** Reads a pod list ({@code name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]}). */
  public static List<TracePod> readPods(Path file) throws IOException {
    List<TracePod> out = new ArrayList<>();
    read(
        file,
        new String[] {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"},
        (row, line) -> {
          Set<String> models = new HashSet<>();
          for (String m : row.optional("gpu_spec").split("\\|")) {
            if (!m.isBlank()) {
              models.add(m.trim().toLowerCase(Locale.ROOT));
            }
          }
          out.add(
              new TracePod(
                  row.get("name"),
                  row.number("cpu_milli"),
                  row.number("memory_mib"),
                  (int) row.number("num_gpu"),
                  (int) row.number("gpu_milli"),
                  models));
        });
    return out;
  }

  private interface RowHandler {
    void accept(Row row, int line);
  }

  private static void read(Path file, String[] required, RowHandler handler) throws IOException {
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = r.readLine();
      if (header == null) {
        throw new IOException(file + ": empty file, expected a CSV header");
      }
      Map<String, Integer> cols = new HashMap<>();
      String[] names = header.strip().split(",", -1);
      for (int i = 0; i < names.length; i++) {
        cols.put(names[i].strip().toLowerCase(Locale.ROOT), i);
      }
      for (String c : required) {
        if (!cols.containsKey(c)) {
          throw new IOException(
              file + ": header lacks column '" + c + "' (found: " + header.strip() + ")");
        }
      }
      String s;
      int line = 1;
      while ((s = r.readLine()) != null) {
        line++;
        if (s.isBlank()) {
          continue;
        }
        Row row = new Row(file, line, cols, s.split(",", -1));
        try {
          handler.accept(row, line);
        } catch (IllegalArgumentException e) {
          throw new IOException(file + " line " + line + ": " + e.getMessage(), e);
        }
      }
    }
  }

  private record Row(Path file, int line, Map<String, Integer> cols, String[] cells) {
    String get(String col) {
      Integer i = cols.get(col);
      if (i == null || i >= cells.length) {
        throw new IllegalArgumentException("missing value for column '" + col + "'");
      }
      return cells[i].strip();
    }

    String optional(String col) {
      Integer i = cols.get(col);
      return i == null || i >= cells.length ? "" : cells[i].strip();
    }

    long number(String col) {
      String v = get(col);
      try {
        return Long.parseLong(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "column '" + col + "' must be a whole number, got '" + v + "'");
      }
    }
  }
}
