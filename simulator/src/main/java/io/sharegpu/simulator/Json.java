package io.sharegpu.simulator;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A minimal JSON writer for the reports (maps, lists, strings, numbers, booleans). */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, 0);
    return sb.append('\n').toString();
  }

  private static void write(StringBuilder sb, Object v, int indent) {
    if (v instanceof Map<?, ?> m) {
      sb.append("{");
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        sb.append(first ? "\n" : ",\n");
        first = false;
        pad(sb, indent + 2);
        string(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        write(sb, e.getValue(), indent + 2);
      }
      if (!first) {
        sb.append('\n');
        pad(sb, indent);
      }
      sb.append('}');
    } else if (v instanceof List<?> l) {
      boolean simple = l.stream().allMatch(x -> x instanceof Number);
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(simple ? ", " : ",");
        }
        if (!simple) {
          sb.append('\n');
          pad(sb, indent + 2);
        }
        write(sb, l.get(i), indent + 2);
      }
      if (!simple && !l.isEmpty()) {
        sb.append('\n');
        pad(sb, indent);
      }
      sb.append(']');
    } else if (v instanceof double[] a) {
      sb.append('[');
      for (int i = 0; i < a.length; i++) {
        if (i > 0) {
          sb.append(", ");
        }
        number(sb, a[i]);
      }
      sb.append(']');
    } else if (v instanceof Double d) {
      number(sb, d);
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v == null) {
      sb.append("null");
    } else {
      string(sb, v.toString());
    }
  }

  private static void number(StringBuilder sb, double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      sb.append("null");
    } else {
      sb.append(String.format(Locale.ROOT, "%.4f", d));
    }
  }

  private static void pad(StringBuilder sb, int n) {
    sb.append(" ".repeat(n));
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
