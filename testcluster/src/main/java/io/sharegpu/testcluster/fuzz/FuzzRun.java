package io.sharegpu.testcluster.fuzz;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Runs a property over generated inputs and reports every distinct finding, not only the first.
 *
 * <p>Seeds are fixed unless asked otherwise, so CI runs the same inputs every time: {@code
 * -Dfuzz.tries=N} raises the number of inputs per target, {@code -Dfuzz.seed=S} (a number, or
 * {@code random}) changes them. Every run prints its seed; a finding names the seed and the try
 * number that reproduce it.
 */
public final class FuzzRun {

  /** The seed CI uses. */
  public static final long DEFAULT_SEED = 20_261_205L;

  private FuzzRun() {}

  /** One check of one input: a finding, or null when the input was handled well. */
  @FunctionalInterface
  public interface Property {
    /**
     * Generates an input with {@code gen}, sends it, and returns a finding or null.
     *
     * @throws Exception counted as a finding
     */
    @Nullable Finding check(HostileJson gen) throws Exception;
  }

  /** What went wrong: {@code kind} groups findings of one cause, {@code detail} shows one. */
  public record Finding(String kind, String detail) {}

  /** The outcome of a run. */
  public record Report(String target, int tries, long seed, long millis, Map<String, Found> found) {

    /** Fails with every kind of finding, its count and one example. */
    public void assertClean() {
      if (found.isEmpty()) {
        return;
      }
      StringBuilder sb = new StringBuilder();
      sb.append(target)
          .append(": ")
          .append(found.values().stream().mapToInt(Found::count).sum())
          .append(" of ")
          .append(tries)
          .append(" inputs failed (seed ")
          .append(seed)
          .append("; rerun with -Dfuzz.seed=")
          .append(seed)
          .append(" -Dfuzz.tries=")
          .append(tries)
          .append("):");
      found.forEach(
          (kind, f) ->
              sb.append("\n  ")
                  .append(f.count())
                  .append(" x ")
                  .append(kind)
                  .append(" (first at try ")
                  .append(f.firstTry())
                  .append("): ")
                  .append(f.example()));
      throw new AssertionError(sb.toString());
    }
  }

  /** How often one kind of finding occurred, with its first example. */
  public record Found(int count, int firstTry, String example) {}

  /** Returns {@code -Dfuzz.tries}, or {@code defaultTries}. */
  public static int tries(int defaultTries) {
    String s = System.getProperty("fuzz.tries", "");
    return s.isBlank() ? defaultTries : Integer.parseInt(s.strip());
  }

  /** Returns {@code -Dfuzz.seed} ({@code random} for a new one), or {@link #DEFAULT_SEED}. */
  public static long seed() {
    String s = System.getProperty("fuzz.seed", "").strip();
    if (s.isEmpty()) {
      return DEFAULT_SEED;
    }
    return "random".equals(s) ? System.nanoTime() : Long.parseLong(s);
  }

  /** Runs {@code property} {@link #tries} times from {@link #seed}, and prints a summary line. */
  public static Report run(String target, int defaultTries, Property property) {
    return run(target, tries(defaultTries), seed(), property);
  }

  /**
   * Runs {@code property} {@code tries} times from {@code seed}; the target's name is mixed into
   * the seed, so targets run with one seed still get different inputs.
   */
  public static Report run(String target, int tries, long seed, Property property) {
    HostileJson gen = new HostileJson(seed ^ ((long) target.hashCode() << 32));
    Map<String, Found> found = new LinkedHashMap<>();
    long start = System.nanoTime();
    for (int i = 0; i < tries; i++) {
      Finding f;
      try {
        f = property.check(gen);
      } catch (Exception | StackOverflowError e) {
        f = new Finding("thrown " + e.getClass().getName(), String.valueOf(e.getMessage()));
      }
      if (f != null) {
        int at = i;
        Finding finding = f;
        found.merge(
            f.kind(),
            new Found(1, at, finding.detail()),
            (a, b) -> new Found(a.count() + 1, a.firstTry(), a.example()));
      }
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(
        "fuzz %s: %d inputs, seed %d, %d findings in %d kinds, %d ms%n",
        target,
        tries,
        seed,
        found.values().stream().mapToInt(Found::count).sum(),
        found.size(),
        millis);
    return new Report(target, tries, seed, millis, found);
  }
}
