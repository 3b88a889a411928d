package io.sharegpu.core.placement;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The answer of {@link Placement#prioritize}: a score 0..10 per node, in the order asked. Immutable
 * and held in arrays, so that scoring thousands of nodes builds no hash table; {@link #get} builds
 * its index on first use. Callers on a hot path iterate {@link #size()}, {@link #node(int)} and
 * {@link #score(int)}.
 */
public final class NodeScores extends AbstractMap<String, Integer> {
  private static final Integer[] BOXED = new Integer[11];

  static {
    for (int i = 0; i < BOXED.length; i++) {
      BOXED[i] = i;
    }
  }

  private final String[] nodes;
  private final byte[] scores;
  private final int size;
  private @Nullable Map<String, Integer> index;
  private @Nullable Set<Entry<String, Integer>> entries;

  /** Takes the arrays as they are (no copy); scores are 0..10; node names are distinct. */
  NodeScores(String[] nodes, byte[] scores, int size) {
    this.nodes = nodes;
    this.scores = scores;
    this.size = size;
  }

  /** The {@code i}-th node, in the order asked. */
  public String node(int i) {
    Objects.checkIndex(i, size);
    return nodes[i];
  }

  /** The {@code i}-th node's score, 0..10. */
  public int score(int i) {
    Objects.checkIndex(i, size);
    return scores[i];
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public @Nullable Integer get(@Nullable Object key) {
    Map<String, Integer> m = index;
    if (m == null) {
      HashMap<String, Integer> built = new HashMap<>(size * 4 / 3 + 1);
      for (int i = 0; i < size; i++) {
        built.putIfAbsent(nodes[i], BOXED[scores[i]]);
      }
      index = m = built;
    }
    return m.get(key);
  }

  @Override
  public boolean containsKey(@Nullable Object key) {
    return get(key) != null;
  }

  @Override
  public Set<Entry<String, Integer>> entrySet() {
    Set<Entry<String, Integer>> e = entries;
    if (e == null) {
      entries = e = new Entries();
    }
    return e;
  }

  private final class Entries extends AbstractSet<Entry<String, Integer>> {
    @Override
    public int size() {
      return size;
    }

    @Override
    public Iterator<Entry<String, Integer>> iterator() {
      return new Iterator<>() {
        private int next;

        @Override
        public boolean hasNext() {
          return next < size;
        }

        @Override
        public Entry<String, Integer> next() {
          if (next >= size) {
            throw new NoSuchElementException();
          }
          int i = next++;
          return new SimpleImmutableEntry<>(nodes[i], BOXED[scores[i]]);
        }
      };
    }
  }
}
