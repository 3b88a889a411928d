package io.sharegpu.core.ledger;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Numbers the distinct node states of one ledger: two nodes get the same number when their GPUs, in
 * some order, have the same model, capacities, health, MIG role and use, and their host capacities
 * and use are the same. Entries are added as nodes ask; the ledger forgets them all (and every node
 * recomputes its number) when they outgrow its nodes, so that the table stays bounded. Not
 * thread-safe.
 */
final class StateClasses {
  private final Map<Key, Integer> ids;
  private final Map<String, Integer> models;
  private int epoch;

  StateClasses() {
    ids = new HashMap<>();
    models = new HashMap<>();
  }

  StateClasses(StateClasses o) {
    ids = new HashMap<>(o.ids);
    models = new HashMap<>(o.models);
    epoch = o.epoch;
  }

  /** Changes whenever numbers are forgotten: a node's number is valid for one epoch. */
  int epoch() {
    return epoch;
  }

  int size() {
    return ids.size();
  }

  /** Forgets every number when there are more than {@code limit}; returns true if it did. */
  boolean trim(int limit) {
    if (ids.size() <= limit) {
      return false;
    }
    ids.clear();
    models.clear();
    epoch++;
    return true;
  }

  int model(String model) {
    Integer id = models.get(model);
    if (id == null) {
      id = models.size();
      models.put(model, id);
    }
    return id;
  }

  /** The number of this state (its words, see {@link NodeUsage#stateClass}). */
  int id(long[] words) {
    Key key = new Key(words);
    Integer id = ids.get(key);
    if (id == null) {
      id = ids.size();
      ids.put(key, id);
    }
    return id;
  }

  private static final class Key {
    final long[] words;
    final int hash;

    Key(long[] words) {
      this.words = words;
      this.hash = Arrays.hashCode(words);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && Arrays.equals(k.words, words);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
