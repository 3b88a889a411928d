package io.sharegpu.core.placement;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
import org.jspecify.annotations.Nullable;

/**
 * The nodes a pod fits and why it does not fit the others. Immutable.
 *
 * <p>Held in arrays, so that {@link Placement#filter} over thousands of nodes builds no map: {@link
 * #rejected()} builds its map on first use; callers on a hot path iterate {@link #rejectedCount()}
 * and {@link #rejection(int)} instead.
 */
public final class FilterResult {
  private final String[] feasible;
  private final int feasibleCount;
  private final Rejection[] rejections;
  private final int rejectedCount;
  private final List<String> feasibleView;
  private volatile @Nullable Map<String, Rejection> rejectedMap;

  /**
   * @param feasible the nodes the pod fits, in the order asked
   * @param rejected the other nodes and why, in the order asked
   */
  public FilterResult(List<String> feasible, Map<String, Rejection> rejected) {
    this(
        feasible.toArray(new String[0]),
        feasible.size(),
        rejected.values().toArray(new Rejection[0]),
        rejected.size());
    for (String name : this.feasible) {
      Objects.requireNonNull(name, "feasible node name");
    }
    for (Map.Entry<String, Rejection> e : rejected.entrySet()) {
      if (!e.getKey().equals(e.getValue().node())) {
        throw new IllegalArgumentException(
            "rejection of " + e.getValue().node() + " filed under " + e.getKey());
      }
    }
  }

  /** Takes the arrays as they are (no copy): the caller must not change them afterwards. */
  FilterResult(String[] feasible, int feasibleCount, Rejection[] rejections, int rejectedCount) {
    this.feasible = feasible;
    this.feasibleCount = feasibleCount;
    this.rejections = rejections;
    this.rejectedCount = rejectedCount;
    this.feasibleView = new ArrayView(feasible, feasibleCount);
  }

  /** The nodes the pod fits, in the order asked. */
  public List<String> feasible() {
    return feasibleView;
  }

  /** The other nodes and why, in the order asked. */
  public Map<String, Rejection> rejected() {
    Map<String, Rejection> m = rejectedMap;
    if (m == null) {
      LinkedHashMap<String, Rejection> built = new LinkedHashMap<>(rejectedCount * 4 / 3 + 1);
      for (int i = 0; i < rejectedCount; i++) {
        built.put(rejections[i].node(), rejections[i]);
      }
      m = Collections.unmodifiableMap(built);
      rejectedMap = m;
    }
    return m;
  }

  /** How many nodes the pod does not fit. */
  public int rejectedCount() {
    return rejectedCount;
  }

  /** The {@code i}-th rejection, in the order asked; {@code 0 <= i < rejectedCount()}. */
  public Rejection rejection(int i) {
    Objects.checkIndex(i, rejectedCount);
    return rejections[i];
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof FilterResult r
        && feasible().equals(r.feasible())
        && Arrays.equals(rejections, 0, rejectedCount, r.rejections, 0, r.rejectedCount);
  }

  @Override
  public int hashCode() {
    return 31 * feasible().hashCode() + rejected().hashCode();
  }

  @Override
  public String toString() {
    return "FilterResult[feasible=" + feasible() + ", rejected=" + rejected() + "]";
  }

  /** A read-only list over the first {@code size} elements of an array. */
  static final class ArrayView extends AbstractList<String> implements RandomAccess {
    private final String[] items;
    private final int size;

    ArrayView(String[] items, int size) {
      this.items = items;
      this.size = size;
    }

    @Override
    public String get(int index) {
      Objects.checkIndex(index, size);
      return items[index];
    }

    @Override
    public int size() {
      return size;
    }
  }
}
