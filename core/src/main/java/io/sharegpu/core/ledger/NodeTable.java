package io.sharegpu.core.ledger;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The ledger's lookup of nodes by name: open addressing over plain arrays (names, their hashes,
 * usages and each node's {@link NodeUsage#stateClass}), so that a lookup reads a few dense arrays
 * that stay in the processor's caches rather than one scattered object per step. Not thread-safe.
 */
final class NodeTable {
  private String[] keys;
  private int[] hashes;
  private NodeUsage[] values;
  private int[] classes;
  private int size;

  NodeTable(int expected) {
    int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
    keys = new String[cap];
    hashes = new int[cap];
    values = new NodeUsage[cap];
    classes = new int[cap];
  }

  /** The slot of this name, or -1. */
  int find(String name) {
    int h = name.hashCode();
    int mask = keys.length - 1;
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      String k = keys[i];
      if (k == null) {
        return -1;
      }
      if (k == name || (hashes[i] == h && k.equals(name))) {
        return i;
      }
    }
  }

  NodeUsage usage(int slot) {
    return values[slot];
  }

  /** The state class of the node in this slot, remembered until the node changes. */
  int stateClass(int slot) {
    int c = classes[slot];
    if (c < 0) {
      c = values[slot].stateClass();
      classes[slot] = c;
    }
    return c;
  }

  void put(String name, NodeUsage usage) {
    int i = find(name);
    if (i >= 0) {
      values[i] = usage;
      classes[i] = -1;
      return;
    }
    if (2 * (size + 1) > keys.length) {
      grow();
    }
    insert(name, name.hashCode(), usage);
    size++;
  }

  /** Forgets the remembered state class of this node (it changed). */
  void changed(String name) {
    int i = find(name);
    if (i >= 0) {
      classes[i] = -1;
    }
  }

  /** Forgets every remembered state class (the numbers were renumbered). */
  void renumbered() {
    Arrays.fill(classes, -1);
  }

  void remove(String name) {
    int i = find(name);
    if (i < 0) {
      return;
    }
    int mask = keys.length - 1;
    // backward-shift deletion keeps every probe sequence unbroken
    int hole = i;
    for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
      int home = spread(hashes[j]) & mask;
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        keys[hole] = keys[j];
        hashes[hole] = hashes[j];
        values[hole] = values[j];
        classes[hole] = classes[j];
        hole = j;
      }
    }
    keys[hole] = null;
    values[hole] = null;
    size--;
  }

  private void insert(String name, int h, @Nullable NodeUsage usage) {
    int mask = keys.length - 1;
    int i = spread(h) & mask;
    while (keys[i] != null) {
      i = (i + 1) & mask;
    }
    keys[i] = name;
    hashes[i] = h;
    values[i] = usage;
    classes[i] = -1;
  }

  private void grow() {
    String[] k = keys;
    int[] h = hashes;
    NodeUsage[] v = values;
    keys = new String[k.length * 2];
    hashes = new int[k.length * 2];
    values = new NodeUsage[k.length * 2];
    classes = new int[k.length * 2];
    for (int i = 0; i < k.length; i++) {
      if (k[i] != null) {
        insert(k[i], h[i], v[i]);
      }
    }
  }

  private static int spread(int h) {
    // node names differ in their last characters, so their String hashes are nearly consecutive;
    // a multiplicative mix scatters them (linear probing clusters on consecutive homes)
    int x = h * 0x9E3779B9;
    return x ^ (x >>> 16);
  }
}
