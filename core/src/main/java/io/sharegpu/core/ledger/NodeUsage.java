package io.sharegpu.core.ledger;

import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The live usage of one node's GPUs, kept in arrays by the {@link Ledger} and updated in place on
 * every commit and release. Read-only for everyone else; positions {@code 0..size()-1} are the
 * node's GPUs in index order. Valid until the ledger next changes; not thread-safe.
 */
public final class NodeUsage {
  private final GpuNode node;
  private final Gpu[] gpus;
  private final String[] modelLower;
  private final boolean[] migParent;
  private final Map<String, Integer> positionByUuid;
  private final boolean hasCordon;

  /**
   * Per GPU, {@link #STRIDE} longs in one array (one memory block per node for the hot path): held
   * compute, held memory, compute, memory, whole holders, holder count, flags.
   */
  final long[] cells;

  static final int STRIDE = 8;
  static final int USED_MILLI = 0;
  static final int USED_MEM = 1;
  static final int CAP_MILLI = 2;
  static final int CAP_MEM = 3;
  static final int WHOLE = 4;
  static final int HOLDERS = 5;
  static final int FLAGS = 6;
  static final long UNHEALTHY = 1;
  static final long MIG_PARENT = 2;
  static final long MIG_INSTANCE = 4;
  // 8 and 16 are taken by gpuWord (held whole, in use)
  static final long CORDONED = 32;

  final List<List<String>> holders;
  long usedCpuMilli;
  long usedHostMemoryMib;
  private @Nullable List<GpuUsage> usageCache;
  private final StateClasses classes;
  private long generation;
  private int stateClass = -1;
  private int stateEpoch;

  NodeUsage(GpuNode node, StateClasses classes) {
    this.node = node;
    this.classes = classes;
    List<Gpu> sorted = new ArrayList<>(node.gpus());
    sorted.sort(Comparator.comparingInt(Gpu::index));
    int n = sorted.size();
    gpus = sorted.toArray(new Gpu[0]);
    modelLower = new String[n];
    migParent = new boolean[n];
    positionByUuid = new HashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      modelLower[i] = gpus[i].model().toLowerCase(Locale.ROOT);
      positionByUuid.put(gpus[i].uuid(), i);
    }
    for (Gpu g : gpus) {
      Integer parent = g.parentUuid() == null ? null : positionByUuid.get(g.parentUuid());
      if (parent != null) {
        migParent[parent] = true;
      }
    }
    cells = new long[n * STRIDE];
    boolean cordon = false;
    for (int i = 0; i < n; i++) {
      Gpu g = gpus[i];
      cordon |= g.cordoned();
      cells[i * STRIDE + CAP_MILLI] = g.computeMilli();
      cells[i * STRIDE + CAP_MEM] = g.memoryMib();
      cells[i * STRIDE + FLAGS] =
          (g.healthy() ? 0 : UNHEALTHY)
              | (migParent[i] ? MIG_PARENT : 0)
              | (g.isMig() ? MIG_INSTANCE : 0)
              | (g.cordoned() ? CORDONED : 0);
    }
    hasCordon = cordon;
    holders = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      holders.add(new ArrayList<>(2));
    }
  }

  private NodeUsage(NodeUsage o, StateClasses classes) {
    this.classes = classes;
    node = o.node;
    gpus = o.gpus;
    modelLower = o.modelLower;
    migParent = o.migParent;
    positionByUuid = o.positionByUuid;
    hasCordon = o.hasCordon;
    cells = o.cells.clone();
    holders = new ArrayList<>(gpus.length);
    for (List<String> h : o.holders) {
      holders.add(new ArrayList<>(h));
    }
    usedCpuMilli = o.usedCpuMilli;
    usedHostMemoryMib = o.usedHostMemoryMib;
    usageCache = o.usageCache;
    generation = o.generation;
    stateClass = o.stateClass;
    stateEpoch = o.stateEpoch;
  }

  NodeUsage copy(StateClasses classes) {
    return new NodeUsage(this, classes);
  }

  void changed() {
    usageCache = null;
    stateClass = -1;
    generation++;
  }

  /** Returns a number that changes whenever this node's usage changes (for caches). */
  public long generation() {
    return generation;
  }

  /**
   * Returns the number of this node's state in its ledger: nodes with the same number have GPUs
   * that, in some order, have the same model, compute and memory, health, cordon, MIG role, held
   * compute and memory, and are held whole or in use alike, and the same host CPU and memory, held
   * and in all. Names, UUIDs, GPU indexes and the pods holding them do not count. Valid until the
   * ledger next changes; small numbers (0, 1, ...), so that callers can index arrays with them.
   */
  public int stateClass() {
    if (stateClass >= 0 && stateEpoch == classes.epoch()) {
      return stateClass;
    }
    int n = gpus.length;
    long[] a = new long[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      a[i] = gpuWord(i);
      order[i] = i;
    }
    Arrays.sort(
        order,
        (x, y) -> {
          int c = Long.compare(a[x], a[y]);
          if (c == 0) {
            c = Long.compare(memoryMib(x), memoryMib(y));
          }
          if (c == 0) {
            c = Long.compare(usedMilli(x), usedMilli(y));
          }
          return c != 0 ? c : Long.compare(usedMemoryMib(x), usedMemoryMib(y));
        });
    long[] words = new long[5 + 4 * n];
    words[0] = n;
    words[1] = node.cpuMilli();
    words[2] = node.memoryMib();
    words[3] = usedCpuMilli;
    words[4] = usedHostMemoryMib;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      words[5 + 4 * k] = a[i];
      words[6 + 4 * k] = memoryMib(i);
      words[7 + 4 * k] = usedMilli(i);
      words[8 + 4 * k] = usedMemoryMib(i);
    }
    stateClass = classes.id(words);
    stateEpoch = classes.epoch();
    return stateClass;
  }

  /**
   * Returns true when GPUs {@code i} and {@code j} of this node are alike as {@link #stateClass}
   * counts them (either could stand for the other).
   */
  public boolean sameState(int i, int j) {
    return i == j
        || (gpuWord(i) == gpuWord(j)
            && memoryMib(i) == memoryMib(j)
            && usedMilli(i) == usedMilli(j)
            && usedMemoryMib(i) == usedMemoryMib(j));
  }

  /** Model, compute, flags, held whole and in use of GPU {@code i} in one number. */
  private long gpuWord(int i) {
    int base = i * STRIDE;
    long flags =
        cells[base + FLAGS]
            | (cells[base + WHOLE] > 0 ? 8 : 0)
            | (cells[base + HOLDERS] > 0 ? 16 : 0);
    return ((long) classes.model(gpus[i].model()) << 40)
        | ((cells[base + CAP_MILLI] & 0xffffffffL) << 8)
        | flags;
  }

  /** Returns the node. */
  public GpuNode node() {
    return node;
  }

  /** Returns the number of GPUs (including MIG instances and MIG-enabled parents). */
  public int size() {
    return gpus.length;
  }

  /** Returns the GPU at position {@code i} (index order). */
  public Gpu gpu(int i) {
    return gpus[i];
  }

  /** Returns the position of the GPU with this UUID, or -1. */
  public int position(String uuid) {
    Integer p = positionByUuid.get(uuid);
    return p == null ? -1 : p;
  }

  /** Returns the GPU's model name in lower case. */
  public String modelLowerCase(int i) {
    return modelLower[i];
  }

  /** Returns true when the GPU has MIG instances on this node (only its instances are used). */
  public boolean isMigParent(int i) {
    return (cells[i * STRIDE + FLAGS] & MIG_PARENT) != 0;
  }

  /** Returns the compute held on GPU {@code i}. */
  public int usedMilli(int i) {
    return (int) cells[i * STRIDE + USED_MILLI];
  }

  /** Returns the memory held on GPU {@code i}. */
  public long usedMemoryMib(int i) {
    return cells[i * STRIDE + USED_MEM];
  }

  /** Returns the compute of GPU {@code i} (thousandths of a full GPU). */
  public int computeMilli(int i) {
    return (int) cells[i * STRIDE + CAP_MILLI];
  }

  /** Returns the memory of GPU {@code i}. */
  public long memoryMib(int i) {
    return cells[i * STRIDE + CAP_MEM];
  }

  /** Returns true when GPU {@code i} is healthy. */
  public boolean isHealthy(int i) {
    return (cells[i * STRIDE + FLAGS] & UNHEALTHY) == 0;
  }

  /**
   * Returns true when an operator cordoned GPU {@code i}: it takes no new pods, the pods on it stay
   * and keep counting.
   */
  public boolean isCordoned(int i) {
    return (cells[i * STRIDE + FLAGS] & CORDONED) != 0;
  }

  /** Returns true when any GPU of the node is cordoned (false for almost every node). */
  public boolean hasCordon() {
    return hasCordon;
  }

  /** Returns true when GPU {@code i} is a MIG instance. */
  public boolean isMigInstance(int i) {
    return (cells[i * STRIDE + FLAGS] & MIG_INSTANCE) != 0;
  }

  /** Returns the compute not held on GPU {@code i}. */
  public int freeMilli(int i) {
    return (int) Math.max(0, cells[i * STRIDE + CAP_MILLI] - cells[i * STRIDE + USED_MILLI]);
  }

  /** Returns the memory not held on GPU {@code i}. */
  public long freeMemoryMib(int i) {
    return Math.max(0, cells[i * STRIDE + CAP_MEM] - cells[i * STRIDE + USED_MEM]);
  }

  /** Returns true when a pod holds GPU {@code i} whole. */
  public boolean isExclusive(int i) {
    return cells[i * STRIDE + WHOLE] > 0;
  }

  /** Returns the number of allocations holding a part of GPU {@code i}. */
  public int holderCount(int i) {
    return (int) cells[i * STRIDE + HOLDERS];
  }

  /** Returns the pods holding a part of GPU {@code i}, in commit order. */
  public List<String> holders(int i) {
    return List.copyOf(holders.get(i));
  }

  /** Returns the host CPU held by pods on this node (only pods that declared it). */
  public long usedCpuMilli() {
    return usedCpuMilli;
  }

  /** Returns the host memory held by pods on this node (only pods that declared it). */
  public long usedHostMemoryMib() {
    return usedHostMemoryMib;
  }

  /** Returns the host CPU not held, or {@link Long#MAX_VALUE} when the node does not track it. */
  public long freeCpuMilli() {
    return node.cpuMilli() == 0 ? Long.MAX_VALUE : Math.max(0, node.cpuMilli() - usedCpuMilli);
  }

  /** Returns the host memory not held, or {@link Long#MAX_VALUE} when not tracked. */
  public long freeHostMemoryMib() {
    return node.memoryMib() == 0
        ? Long.MAX_VALUE
        : Math.max(0, node.memoryMib() - usedHostMemoryMib);
  }

  /** Returns one usage value per GPU in index order (cached until the node next changes). */
  public List<GpuUsage> usage() {
    List<GpuUsage> cached = usageCache;
    if (cached == null) {
      GpuUsage[] out = new GpuUsage[gpus.length];
      for (int i = 0; i < gpus.length; i++) {
        out[i] =
            new GpuUsage(gpus[i], usedMilli(i), usedMemoryMib(i), isExclusive(i), holders.get(i));
      }
      cached = List.of(out);
      usageCache = cached;
    }
    return cached;
  }

  @Override
  public String toString() {
    return "NodeUsage[" + node.name() + " cells=" + Arrays.toString(cells) + "]";
  }
}
