package io.sharegpu.core.placement;

import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.Arrays;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which nodes a pod shape does not fit, and where it failed, kept across decisions: between two
 * decisions almost every node is unchanged, and a node that did not fit a shape still does not fit
 * it while its usage is the same. Only for pods of one container that name no GPUs: their fit
 * depends on the pod's demand and the node's usage alone, never on the policy (the GPU the policy
 * picks for a single container changes which GPU is taken, not whether one is), so the learning
 * policy's new scores after each observed pod leave it valid. Nodes that fit are evaluated every
 * time (their scores follow the policy).
 *
 * <p>An entry is valid while the ledger holds the very {@link NodeUsage} it was made for at the
 * same {@linkplain NodeUsage#generation generation}: a commit or release on the node moves its
 * generation, a replaced or re-added node is a new object, so the ledger's own change record
 * invalidates exactly the nodes that changed. Memory is bounded: {@value #SHAPES} shapes (the
 * oldest shape's arrays are reused for a new one), each three arrays over the ledger's node slots,
 * allocated once. Not thread-safe.
 */
final class NoFitMemory {
  /** How many pod shapes are remembered. */
  static final int SHAPES = 32;

  private static final Refusal[] REFUSALS = Refusal.values();

  private final Entry[] entries = new Entry[SHAPES];
  private int next;
  private @Nullable Entry current;
  private long hits;

  /**
   * Selects the entry of this pod's shape, or none when the plan's fit may depend on the policy.
   */
  void begin(PodPlan plan) {
    PodDemand pod = plan.pod;
    if (pod.containers().size() != 1 || plan.rules.namesGpus()) {
      current = null;
      return;
    }
    Shape shape = new Shape(pod.containers().get(0), pod.models(), pod.cpuMilli(), pod.memoryMib());
    Entry c = current;
    if (c != null && c.shape.equals(shape)) {
      return;
    }
    for (Entry e : entries) {
      if (e != null && e.shape.equals(shape)) {
        current = e;
        return;
      }
    }
    Entry e = entries[next];
    if (e == null) {
      e = new Entry();
      entries[next] = e;
    } else {
      Arrays.fill(e.usage, null);
    }
    e.shape = shape;
    next = (next + 1) % SHAPES;
    current = e;
  }

  /** Whether the current shape is remembered not to fit the node now in {@code slot}. */
  boolean noFit(int slot, NodeUsage u) {
    Entry e = current;
    if (e != null
        && slot < e.usage.length
        && e.usage[slot] == u
        && e.generation[slot] == u.generation()) {
      hits++;
      return true;
    }
    return false;
  }

  /** How many times a node was answered from memory. */
  long hits() {
    return hits;
  }

  /** Where the current shape failed on the node in {@code slot} (after {@link #noFit} said so). */
  void failureInto(int slot, Failure f) {
    Entry e = current;
    if (e != null) {
      int w = e.failure[slot];
      f.set(REFUSALS[w & 0xff], ((w >>> 8) & 0xff) - 1, w >>> 16);
    }
  }

  /**
   * Remembers that the current shape does not fit the node in {@code slot}, failing as {@code f}.
   */
  void remember(int slot, NodeUsage u, Failure f) {
    Entry e = current;
    if (e == null || f.refusal == Refusal.NONE || f.available < 0 || f.available > 0xffff) {
      return;
    }
    if (slot >= e.usage.length) {
      int n = Math.max(slot + 1, Math.max(64, e.usage.length * 2));
      e.usage = Arrays.copyOf(e.usage, n);
      e.generation = Arrays.copyOf(e.generation, n);
      e.failure = Arrays.copyOf(e.failure, n);
    }
    e.usage[slot] = u;
    e.generation[slot] = u.generation();
    e.failure[slot] = f.refusal.ordinal() | ((f.container + 1) & 0xff) << 8 | f.available << 16;
  }

  /** What the fit of a one-container pod depends on. */
  private record Shape(GpuDemand container, Set<String> models, long cpuMilli, long memoryMib) {}

  private static final class Entry {
    Shape shape = new Shape(GpuDemand.whole("-", 1, 0), Set.of(), 0, 0);
    @Nullable NodeUsage[] usage = new NodeUsage[0];
    long[] generation = new long[0];
    int[] failure = new int[0];
  }
}
