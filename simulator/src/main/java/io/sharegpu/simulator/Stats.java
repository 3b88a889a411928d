package io.sharegpu.simulator;

/** Mean and sample standard deviation. */
public record Stats(double mean, double std) {

  /** NaN values are skipped; no values give NaN. */
  public static Stats of(double... values) {
    double sum = 0;
    int n = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        sum += v;
        n++;
      }
    }
    if (n == 0) {
      return new Stats(Double.NaN, Double.NaN);
    }
    double mean = sum / n;
    double sq = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        sq += (v - mean) * (v - mean);
      }
    }
    return new Stats(mean, n > 1 ? Math.sqrt(sq / (n - 1)) : 0);
  }
}
