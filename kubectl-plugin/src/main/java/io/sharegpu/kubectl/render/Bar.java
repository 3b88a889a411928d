package io.sharegpu.kubectl.render;

/**
 * A fill bar in plain ASCII, so it reads the same in any terminal, pipe or log: {@code bar(250,
 * 1000, 8)} is {@code [##......]}. Rounds to the nearest cell, but never shows a full bar below 100
 * % nor an empty one above 0 %.
 */
public final class Bar {

  private Bar() {}

  /** Returns the bar of {@code used} out of {@code total} in {@code width} cells, coloured. */
  public static String of(double used, double total, int width, Style style) {
    double fraction = total <= 0 ? 0 : Math.max(0, used / total);
    int filled = (int) Math.round(Math.min(1, fraction) * width);
    if (fraction > 0 && filled == 0) {
      filled = 1;
    }
    if (fraction < 1 && filled == width) {
      filled = width - 1;
    }
    String full = "#".repeat(filled);
    String empty = ".".repeat(width - filled);
    return "[" + style.level(full, fraction) + style.dim(empty) + "]";
  }

  /** Returns {@code 10.0/79.6Gi} for 10240 of 81559 MiB. */
  public static String gib(long usedMib, long totalMib) {
    return String.format(java.util.Locale.ROOT, "%.1f/%.1fGi", usedMib / 1024.0, totalMib / 1024.0);
  }

  /** Returns {@code 0.25/1} for 250 of 1000 thousandths: GPUs, as kubectl shows CPUs. */
  public static String gpus(int usedMilli, int totalMilli) {
    return milli(usedMilli) + "/" + milli(totalMilli);
  }

  /** Returns {@code 0.25} for 250, {@code 1} for 1000, {@code 0.143} for 143. */
  public static String milli(int milli) {
    return new java.math.BigDecimal(milli).movePointLeft(3).stripTrailingZeros().toPlainString();
  }
}
