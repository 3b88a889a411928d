package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.CandidateGrant;
import io.sharegpu.core.placement.NodeView;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The expected fragment ({@link NodeState#fragment}) of nodes, before and after a candidate grant,
 * computed fast and with exactly the same arithmetic as {@link NodeState#fragment}.
 *
 * <p>Per node it keeps, for every shape of the workload, how many GPUs the shape fits and the free
 * compute of the others; this stays valid until the node changes (its usage list is replaced by the
 * ledger on every change) or a new shape is observed. The fragment is then one pass over the shapes
 * with the current probabilities, and the fragment after a grant adjusts those counts for the GPUs
 * the grant touches only. The per-GPU growth ({@link FgdPolicy#gpuFragmentGrowth}) is remembered
 * per GPU model, capacity, request and free compute until the workload's counts change. Not
 * thread-safe.
 */
final class FragmentIndex {
  private final Map<String, Entry> byNode = new HashMap<>();
  private Workload workload = new Workload();
  private long probabilitiesVersion = -1;
  private double[] probability = new double[0];
  private int[] shapeMilli = new int[0];
  private int[] shapeCount = new int[0];
  private long[] shapeCpu = new long[0];
  private int[] scratchFree = new int[8];
  private int[] scratchFit = new int[0];
  private int[] scratchBelow = new int[0];
  private int[] touchedGpu = new int[8];
  private int[] touchedFree = new int[8];
  private final GrowthMemo[] memos = new GrowthMemo[4];
  private int nextMemo;
  private @Nullable Entry last;
  private int lastTotalFree;
  private long lastFreeCpu;
  private boolean lastCpuTracked;

  /** Forgets everything (for example when the policy's workload object is replaced). */
  void clear() {
    byNode.clear();
    last = null;
    probabilitiesVersion = -1;
    for (int i = 0; i < memos.length; i++) {
      memos[i] = null;
    }
  }

  /** The fragment of the node as it is now. */
  double before(NodeView view, Workload w) {
    Entry e = entry(view, w);
    return sum(e.total, e.cpuTracked, e.freeCpu, e.fit, e.below);
  }

  /** The fragment of the node after {@code grant} and {@code cpuMilli} more host CPU are taken. */
  double after(NodeView view, Workload w, List<ContainerGrant> grant, long cpuMilli) {
    Entry e = entry(view, w);
    int n = e.free.length;
    if (scratchFree.length < n) {
      scratchFree = new int[n];
    }
    int[] free = scratchFree;
    System.arraycopy(e.free, 0, free, 0, n);
    for (int c = 0, cn = grant.size(); c < cn; c++) {
      List<GpuGrant> gg = grant.get(c).gpus();
      for (int k = 0, kn = gg.size(); k < kn; k++) {
        GpuGrant x = gg.get(k);
        int i = e.position(x.uuid());
        if (i >= 0) {
          free[i] = Math.max(0, free[i] - x.computeMilli());
        }
      }
    }
    int sn = e.fit.length;
    if (scratchFit.length < sn) {
      scratchFit = new int[sn];
      scratchBelow = new int[sn];
    }
    int[] fit = scratchFit;
    int[] below = scratchBelow;
    System.arraycopy(e.fit, 0, fit, 0, sn);
    System.arraycopy(e.below, 0, below, 0, sn);
    int total = e.total;
    for (int i = 0; i < n; i++) {
      int fb = e.free[i];
      int fa = free[i];
      if (fa == fb) {
        continue;
      }
      total += fa - fb;
      boolean[] allowed = e.allowed[i];
      for (int s = 0; s < sn; s++) {
        if (!allowed[s]) {
          below[s] += fa - fb;
          continue;
        }
        int m = shapeMilli[s];
        if (fb >= m) {
          fit[s]--;
        } else {
          below[s] -= fb;
        }
        if (fa >= m) {
          fit[s]++;
        } else {
          below[s] += fa;
        }
      }
    }
    long cpu = e.cpuTracked ? Math.max(0, view.freeCpuMilli() - cpuMilli) : Long.MAX_VALUE;
    lastTotalFree = total;
    lastFreeCpu = cpu;
    lastCpuTracked = e.cpuTracked;
    return sum(total, e.cpuTracked, cpu, fit, below);
  }

  /**
   * The fragment of the node after {@code candidate} and {@code cpuMilli} more host CPU are taken:
   * the same number as {@link #after(NodeView, Workload, List, long)} on the candidate's grants.
   * Copies none of the node's arrays: it notes the free compute after the candidate of the GPUs the
   * candidate touches only, and the pass over the shapes adjusts each shape's counts for those GPUs
   * on the fly (the same integer counts, hence the same sum).
   *
   * <p>Example: 8 idle GPUs of 1000m and a 300m share on GPU 2: one touched GPU, free 1000 → 700; a
   * shape of 500m keeps fit 8 (700 ≥ 500), a shape of 800m goes from fit 8 to 7 and from 0 to 700
   * below.
   */
  double after(NodeView view, Workload w, CandidateGrant candidate, long cpuMilli) {
    Entry e = entry(view, w);
    int n = e.free.length;
    if (touchedGpu.length < n) {
      touchedGpu = new int[n];
      touchedFree = new int[n];
    }
    int[] gpu = touchedGpu;
    int[] freeAfter = touchedFree;
    int touched = 0;
    for (int c = 0, cn = candidate.containers(); c < cn; c++) {
      for (int k = candidate.start(c), end = k + candidate.granted(c); k < end; k++) {
        int i = candidate.gpu(k);
        if (i < 0 || i >= n) {
          continue;
        }
        int t = 0;
        while (t < touched && gpu[t] != i) {
          t++;
        }
        if (t == touched) {
          gpu[t] = i;
          freeAfter[t] = e.free[i];
          touched++;
        }
        freeAfter[t] = Math.max(0, freeAfter[t] - candidate.computeMilli(k));
      }
    }
    int total = e.total;
    int changed = 0;
    for (int t = 0; t < touched; t++) {
      int fa = freeAfter[t];
      int fb = e.free[gpu[t]];
      if (fa != fb) {
        total += fa - fb;
        gpu[changed] = gpu[t];
        freeAfter[changed] = fa;
        changed++;
      }
    }
    long cpu = e.cpuTracked ? Math.max(0, view.freeCpuMilli() - cpuMilli) : Long.MAX_VALUE;
    lastTotalFree = total;
    lastFreeCpu = cpu;
    lastCpuTracked = e.cpuTracked;
    return sumAfter(e, total, cpu, gpu, freeAfter, changed);
  }

  /**
   * {@link #sum} of the node's counts adjusted for {@code changed} GPUs ({@code gpu[t]} now has
   * {@code freeAfter[t]} free), the same adjustment as {@link #after(NodeView, Workload, List,
   * long)} makes on its copies.
   */
  private double sumAfter(
      Entry e, int total, long freeCpu, int[] gpu, int[] freeAfter, int changed) {
    if (total == 0) {
      return 0;
    }
    boolean cpuTracked = e.cpuTracked;
    double f = 0;
    for (int s = 0, sn = probability.length; s < sn; s++) {
      double p = probability[s];
      if (p == 0) {
        continue;
      }
      int count = shapeCount[s];
      if (count == 0 || (cpuTracked && shapeCpu[s] > freeCpu)) {
        f += p * total;
        continue;
      }
      int fit = e.fit[s];
      int below = e.below[s];
      int m = shapeMilli[s];
      for (int t = 0; t < changed; t++) {
        int i = gpu[t];
        int fb = e.free[i];
        int fa = freeAfter[t];
        if (!e.allowed[i][s]) {
          below += fa - fb;
          continue;
        }
        if (fb >= m) {
          fit--;
        } else {
          below -= fb;
        }
        if (fa >= m) {
          fit++;
        } else {
          below += fa;
        }
      }
      f += p * (fit >= count ? below : total);
    }
    return f;
  }

  /** Free GPU compute of the node after the grant of the last {@link #after} call. */
  int lastTotalFree() {
    return lastTotalFree;
  }

  /** Free host CPU after the last {@link #after} call ({@code Long.MAX_VALUE} when untracked). */
  long lastFreeCpu() {
    return lastFreeCpu;
  }

  /** Whether the node of the last {@link #after} call tracks host CPU. */
  boolean lastCpuTracked() {
    return lastCpuTracked;
  }

  /** As {@link FgdPolicy#gpuFragmentGrowth}, remembered until the workload changes. */
  double gpuGrowth(Workload w, Gpu gpu, int usedMilli, int addMilli) {
    int cap = gpu.computeMilli();
    if (cap > 4096 || cap < 0 || usedMilli < 0) {
      return FgdPolicy.gpuFragmentGrowth(w, gpu, usedMilli, addMilli);
    }
    GrowthMemo memo = null;
    for (GrowthMemo m : memos) {
      if (m != null
          && m.workload == w
          && m.version == w.version()
          && m.cap == cap
          && m.add == addMilli
          && (m.model == gpu.model() || m.model.equals(gpu.model()))) {
        memo = m;
        break;
      }
    }
    if (memo == null) {
      memo = new GrowthMemo(w, w.version(), gpu.model(), cap, addMilli);
      memos[nextMemo] = memo;
      nextMemo = (nextMemo + 1) % memos.length;
    }
    int free = Math.max(0, cap - usedMilli);
    if (!memo.known[free]) {
      memo.value[free] = FgdPolicy.gpuFragmentGrowth(w, gpu, usedMilli, addMilli);
      memo.known[free] = true;
    }
    return memo.value[free];
  }

  private Entry entry(NodeView view, Workload w) {
    if (w != workload) {
      clear();
      workload = w;
    }
    probabilities(w);
    GpuNode node = view.node();
    List<GpuUsage> gpus = view.gpus();
    Entry e = last;
    if (e == null || e.node != node) {
      e = byNode.get(node.name());
    }
    if (e != null
        && e.gpus == gpus
        && e.node == node
        && e.freeCpu == view.freeCpuMilli()
        && e.fit.length == w.size()) {
      last = e;
      return e;
    }
    e = new Entry(view, w, shapeMilli);
    byNode.put(node.name(), e);
    last = e;
    return e;
  }

  private void probabilities(Workload w) {
    if (probabilitiesVersion == w.version()) {
      return;
    }
    int sn = w.size();
    if (probability.length != sn) {
      probability = new double[sn];
      shapeMilli = new int[sn];
      shapeCount = new int[sn];
      shapeCpu = new long[sn];
    }
    for (int s = 0; s < sn; s++) {
      PodShape m = w.shape(s);
      probability[s] = w.probability(s);
      shapeMilli[s] = m.gpuMilli();
      shapeCount[s] = m.gpuCount();
      shapeCpu[s] = m.cpuMilli();
    }
    probabilitiesVersion = w.version();
  }

  /** The same sum, in the same order, as {@link NodeState#fragment}. */
  private double sum(int total, boolean cpuTracked, long freeCpu, int[] fit, int[] below) {
    if (total == 0) {
      return 0;
    }
    double f = 0;
    for (int s = 0, sn = probability.length; s < sn; s++) {
      double p = probability[s];
      if (p == 0) {
        continue;
      }
      int count = shapeCount[s];
      if (count == 0 || (cpuTracked && shapeCpu[s] > freeCpu)) {
        f += p * total;
        continue;
      }
      f += p * (fit[s] >= count ? below[s] : total);
    }
    return f;
  }

  /** One node's counts per shape. */
  private static final class Entry {
    final List<GpuUsage> gpus;
    final GpuNode node;
    final long freeCpu;
    final boolean cpuTracked;
    final String[] uuids;
    final int[] free;
    final boolean[][] allowed;
    final int total;
    final int[] fit;
    final int[] below;

    Entry(NodeView view, Workload w, int[] shapeMilli) {
      this.gpus = view.gpus();
      this.node = view.node();
      this.freeCpu = view.freeCpuMilli();
      NodeState state = NodeState.of(view);
      this.cpuTracked = state.cpuTracked;
      int n = gpus.size();
      this.uuids = new String[n];
      this.allowed = new boolean[n][];
      for (int i = 0; i < n; i++) {
        Gpu g = gpus.get(i).gpu();
        uuids[i] = g.uuid();
        allowed[i] = w.allowed(g.model());
      }
      this.free = state.free;
      this.total = state.totalFree();
      int sn = w.size();
      this.fit = new int[sn];
      this.below = new int[sn];
      for (int s = 0; s < sn; s++) {
        int m = shapeMilli[s];
        for (int i = 0; i < n; i++) {
          if (!allowed[i][s]) {
            below[s] += free[i];
          } else if (free[i] >= m) {
            fit[s]++;
          } else {
            below[s] += free[i];
          }
        }
      }
    }

    /**
     * The GPU with this UUID, or -1 (a node lists each UUID once). Grants usually carry the very
     * UUID object of the node's GPU, so identity is tried first (no string contents read).
     */
    int position(String uuid) {
      for (int i = 0; i < uuids.length; i++) {
        if (uuids[i] == uuid) {
          return i;
        }
      }
      for (int i = 0; i < uuids.length; i++) {
        if (uuids[i].equals(uuid)) {
          return i;
        }
      }
      return -1;
    }
  }

  /** Per-GPU fragment growth by free compute, for one model, capacity and request. */
  private static final class GrowthMemo {
    final Workload workload;
    final long version;
    final String model;
    final int cap;
    final int add;
    final double[] value;
    final boolean[] known;

    GrowthMemo(Workload workload, long version, String model, int cap, int add) {
      this.workload = workload;
      this.version = version;
      this.model = model;
      this.cap = cap;
      this.add = add;
      this.value = new double[cap + 1];
      this.known = new boolean[cap + 1];
    }
  }
}
