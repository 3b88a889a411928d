package io.sharegpu.kubectl.render;

import java.util.ArrayList;
import java.util.List;

/**
 * A kubectl-style table: upper-case headers, columns left-aligned and three spaces apart, widths
 * measured without ANSI escape sequences, no trailing spaces.
 */
public final class Table {

  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  public Table(List<String> headers) {
    this.headers = List.copyOf(headers);
  }

  /** Adds a row of as many cells as there are headers. */
  public Table row(List<String> cells) {
    if (cells.size() != headers.size()) {
      throw new IllegalArgumentException(
          "a row needs " + headers.size() + " cells, got " + cells.size());
    }
    rows.add(List.copyOf(cells));
    return this;
  }

  public boolean isEmpty() {
    return rows.isEmpty();
  }

  /** Returns the table, one line per row, each ending in a newline. */
  public String render() {
    int[] width = new int[headers.size()];
    for (int i = 0; i < headers.size(); i++) {
      width[i] = headers.get(i).length();
      for (List<String> row : rows) {
        width[i] = Math.max(width[i], Style.visibleLength(row.get(i)));
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headers, width);
    for (List<String> row : rows) {
      line(out, row, width);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> cells, int[] width) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      String cell = cells.get(i);
      line.append(cell);
      if (i < cells.size() - 1) {
        line.append(" ".repeat(width[i] - Style.visibleLength(cell) + 3));
      }
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }
}
