package io.sharegpu.core.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload model: pod shapes with probabilities. Built offline from a list of pods ({@link #fit})
 * or online by counting pods as they arrive ({@link #add}). Not thread-safe.
 */
public final class Workload {
  private final Map<PodShape, Integer> index = new LinkedHashMap<>();
  private final List<PodShape> shapes = new ArrayList<>();
  private double[] weight = new double[0];
  private double total;
  private long version;
  private final Map<String, boolean[]> allowedByModel = new HashMap<>();

  /** An empty model (no shapes). */
  public Workload() {}

  /**
   * Fits the FGD target workload: the most frequent shapes that together cover {@code coverage}
   * (0..1] of the pods, weighted by their share of all pods.
   */
  public static Workload fit(List<PodShape> pods, double coverage) {
    Map<PodShape, Integer> counts = new LinkedHashMap<>();
    for (PodShape p : pods) {
      counts.merge(p, 1, Integer::sum);
    }
    List<Map.Entry<PodShape, Integer>> sorted = new ArrayList<>(counts.entrySet());
    sorted.sort((a, b) -> Integer.compare(b.getValue(), a.getValue()));
    Workload w = new Workload();
    double covered = 0;
    for (Map.Entry<PodShape, Integer> e : sorted) {
      if (covered >= coverage * pods.size()) {
        break;
      }
      w.add(e.getKey(), e.getValue());
      covered += e.getValue();
    }
    w.total = pods.size();
    w.version++;
    return w;
  }

  /** Counts {@code count} more pods of this shape. */
  public void add(PodShape shape, double count) {
    Integer i = index.get(shape);
    if (i == null) {
      i = shapes.size();
      index.put(shape, i);
      shapes.add(shape);
      double[] w = new double[shapes.size()];
      System.arraycopy(weight, 0, w, 0, weight.length);
      weight = w;
      allowedByModel.clear();
    }
    weight[i] += count;
    total += count;
    version++;
  }

  /** Multiplies every count by {@code factor} (0..1): older pods count less. */
  public void decay(double factor) {
    for (int i = 0; i < weight.length; i++) {
      weight[i] *= factor;
    }
    total *= factor;
    version++;
  }

  /** Changes on every {@link #add} and {@link #decay}: cached values computed from it are stale. */
  long version() {
    return version;
  }

  /** Number of shapes. */
  public int size() {
    return shapes.size();
  }

  /** Returns shape {@code i}. */
  public PodShape shape(int i) {
    return shapes.get(i);
  }

  /** Returns the probability of shape {@code i} (its count over all pods counted). */
  public double probability(int i) {
    return total <= 0 ? 0 : weight[i] / total;
  }

  /** Returns the total count. */
  public double total() {
    return total;
  }

  /** Returns, per shape, whether a GPU of this model is allowed (cached). */
  boolean[] allowed(String model) {
    boolean[] a = allowedByModel.get(model);
    if (a == null) {
      a = new boolean[shapes.size()];
      for (int i = 0; i < a.length; i++) {
        a[i] = shapes.get(i).allows(model);
      }
      allowedByModel.put(model, a);
    }
    return a;
  }
}
