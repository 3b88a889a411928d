package io.sharegpu.core.policy;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.ledger.GpuGrant;
import io.sharegpu.core.ledger.GpuUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.placement.CandidateGrant;
import io.sharegpu.core.placement.GpuPreference;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.placement.StateScored;
import io.sharegpu.core.placement.SupplyAware;
import io.sharegpu.core.request.PodDemand;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * ShareGPU's default policy: online fragmentation descent with host-resource stranding and a charge
 * for GPU models that restricted pods need. It learns the workload only from the pods it has
 * observed and places each pod where the node's expected waste grows least. The expected waste of a
 * node has three parts:
 *
 * <ol>
 *   <li>the expected fragment ({@link NodeState#fragment}: GPU compute that the pods to come could
 *       not use), over every shape seen (pods with and without GPUs), each weighted by its pod
 *       count;
 *   <li>the stranded GPU compute (weight 2): free GPU compute that the node's free host CPU or host
 *       memory cannot feed, at the CPU and memory per GPU that the observed GPU pods asked for on
 *       average ({@code max(0, freeGpu - freeCpu / cpuPerGpu, freeGpu - freeMemory /
 *       memoryPerGpu)}). A node whose CPU runs out strands all its free GPU; this term steers
 *       CPU-hungry pods (and pods without GPUs) to nodes with CPU to spare long before that cliff.
 *       While the host CPU {@linkplain #cpuBound runs out before the GPUs} (the free GPUs would
 *       need more CPU than is free, at the CPU per GPU of all observed pods), the CPU per GPU
 *       counts the pods without GPUs too, since they will take their part of every node's CPU.
 *       Nodes that do not track host CPU or memory (the extender's) have no stranding;
 *   <li>the reserved-model charge (weight 1), for pods that may run on any GPU model only: each
 *       milli-GPU the pod takes costs the {@linkplain #pressure pressure} of that GPU's model, how
 *       much the pods restricted to GPU models need it. A model whose restricted pods asked for a
 *       larger share of the observed GPU demand than the model's share of the cluster's GPUs (the
 *       inventory {@link io.sharegpu.core.placement.Placement} passes through {@link SupplyAware})
 *       costs about one milli per milli, so unrestricted pods leave the scarce models to the pods
 *       that can run nowhere else. A model no restricted pod asked for yet is priced as if it had
 *       been asked for as much as the asked models on average (at least one whole GPU), which makes
 *       a small model dear and keeps its GPUs whole for its first pods. Before the inventory is
 *       known the charge is 0; on a cluster of one model it is the same on every node.
 * </ol>
 *
 * <p>Scores are exact arithmetic rather than an integer score. Ties go to the node with less free
 * GPU left (packing), then less free CPU. A share goes to the GPU where the fragment grows least,
 * then to the GPU with the least free compute. Before it has seen any pod it packs.
 */
public final class ShareGpuPolicy
    implements PlacementPolicy, GpuPreference, HostOnlyScore, StateScored, SupplyAware {
  /** Registered name. */
  public static final String NAME = "sharegpu";

  /** Default weight of stranded GPU compute against the expected fragment. */
  static final double DEFAULT_STRAND_WEIGHT = 2.0;

  /**
   * The least restricted demand a model nobody asked for yet is assumed to have: one whole GPU
   * (milli).
   */
  static final double UNASKED_DEMAND_MILLI = 1000;

  /** Default weight of the reserved-model charge against the expected fragment. */
  static final double DEFAULT_RESERVE_WEIGHT = 1.0;

  private final Workload workload = new Workload();
  private final FragmentIndex index = new FragmentIndex();
  private long observed;
  private final double byCount;
  private final double strandWeight;
  private final double reserveWeight;
  private double gpuSeen;
  private double cpuSeen;
  private double memorySeen;

  /** Host CPU (milli) of every observed pod, with or without GPUs. */
  private double hostCpuSeen;

  /** Free host CPU and free GPU compute (milli) of the nodes that report host CPU. */
  private long hostNodesFreeCpu;

  private long hostNodesFreeGpu;

  private double strandCpu;
  private long cpuBoundAt = -1;

  /** Observed GPU demand (milli) of pods restricted to GPU models, by their set of models. */
  private final Map<Set<String>, double[]> restrictedDemand = new LinkedHashMap<>();

  /** The cluster's GPU compute by model (lower case), as last given to {@link #supply}. */
  private final Map<String, Long> supplyByModel = new LinkedHashMap<>();

  private double supplyTotal;
  private final Map<String, Double> pressureByModel = new HashMap<>();
  private long pressureAt = -1;

  /** A policy that has seen no pod yet; every pod counts once. */
  public ShareGpuPolicy() {
    this(1, DEFAULT_STRAND_WEIGHT, DEFAULT_RESERVE_WEIGHT);
  }

  /**
   * @param byCount how a pod counts in the workload model: {@code byCount} per pod plus {@code 1 -
   *     byCount} per GPU it asks for (1, the default: with the stranded term, counting pods
   *     measured as good as counting GPUs on the default list and far better on lists of pods
   *     restricted to GPU models)
   * @param strandWeight weight of the stranded GPU compute (0 = plain fragmentation descent)
   * @param reserveWeight weight of the reserved-model charge (0 = none)
   */
  ShareGpuPolicy(double byCount, double strandWeight, double reserveWeight) {
    this.byCount = byCount;
    this.strandWeight = strandWeight;
    this.reserveWeight = reserveWeight;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Counts the pod's shape, and its host CPU, memory and allowed models if it asks for GPUs. */
  @Override
  public void observe(PodDemand pod) {
    PodShape shape = PodShape.of(pod);
    long gpu = shape.totalGpuMilli();
    if (gpu > 0) {
      gpuSeen += gpu;
      cpuSeen += pod.cpuMilli();
      memorySeen += pod.memoryMib();
      if (!shape.models().isEmpty()) {
        restrictedDemand.computeIfAbsent(shape.models(), k -> new double[1])[0] += gpu;
      }
    }
    observe(shape);
  }

  /** Counts one pod of this shape (the simulator also reports pods without GPUs here). */
  public void observe(PodShape shape) {
    workload.add(shape, byCount + (1 - byCount) * shape.totalGpuMilli() / 1000.0);
    hostCpuSeen += shape.cpuMilli();
    observed++;
  }

  /** Number of pods observed. */
  public long observed() {
    return observed;
  }

  /** Takes the cluster's GPU inventory, by model, for the reserved-model charge. */
  @Override
  public void supply(Map<String, Long> computeMilliByModel) {
    supplyByModel.clear();
    supplyTotal = 0;
    for (Map.Entry<String, Long> e : computeMilliByModel.entrySet()) {
      if (e.getValue() > 0) {
        supplyByModel.merge(e.getKey().toLowerCase(Locale.ROOT), e.getValue(), Long::sum);
        supplyTotal += e.getValue();
      }
    }
    pressureAt = -1;
  }

  /** Takes what is free on the nodes that report host CPU, to tell whether CPU runs out first. */
  @Override
  public void freeOnHostNodes(long freeCpuMilli, long freeGpuMilli) {
    if (freeCpuMilli != hostNodesFreeCpu || freeGpuMilli != hostNodesFreeGpu) {
      hostNodesFreeCpu = freeCpuMilli;
      hostNodesFreeGpu = freeGpuMilli;
      cpuBoundAt = -1;
    }
  }

  /**
   * The host CPU (milli) that one milli of free GPU needs to be usable, for the stranded term: the
   * CPU per GPU that the observed GPU pods asked for, or, while the host CPU {@linkplain #cpuBound
   * runs out first}, the CPU per GPU that all observed pods asked for (pods without GPUs included).
   * When CPU runs out first, the pods without GPUs cannot all be fed from the CPU that GPU pods
   * leave over: they take their part of every node's CPU, so a node keeps its GPUs usable only with
   * that part on top of what the GPU pods need, and GPU pods that ask for less CPU per GPU are
   * worth more on nodes with little CPU per free GPU.
   */
  double cpuPerGpu() {
    return strandCpu() / gpuSeen;
  }

  /** The observed CPU that {@link #cpuPerGpu} divides by the observed GPU demand. */
  private double strandCpu() {
    if (cpuBoundAt != observed) {
      cpuBoundAt = observed;
      strandCpu = cpuBound() ? hostCpuSeen : cpuSeen;
    }
    return strandCpu;
  }

  /**
   * Whether the host CPU runs out before the GPUs: at the CPU per GPU that all observed pods asked
   * for (pods without GPUs included), the GPUs still free on the nodes that report host CPU would
   * need at least the host CPU still free there. Then CPU, not GPU, is what the pods to come
   * compete for, and whichever pods take it decide how much GPU can still be used. False while no
   * GPU pod was observed, no GPU is free, or no node reports host CPU.
   */
  boolean cpuBound() {
    return gpuSeen > 0
        && hostNodesFreeGpu > 0
        && hostCpuSeen / gpuSeen * hostNodesFreeGpu >= hostNodesFreeCpu;
  }

  /**
   * How much the pods restricted to GPU models need GPUs of this model: the sum, over the observed
   * sets of allowed models that include it, of the set's share of the observed GPU demand divided
   * by the share of the cluster's GPU compute that the set may use. 1 means the pods restricted to
   * it asked for as large a part of the demand as the model is of the cluster. A model that no
   * observed restricted pod may use gets the {@linkplain #unaskedPressure prior of a model nobody
   * asked for yet}, so that the first pods restricted to a small model do not find it spread over
   * by unrestricted shares. 0 when no pod with GPUs was observed or when the inventory is unknown.
   * Remembered until the next pod is observed or the inventory changes.
   */
  double pressure(String model) {
    if (pressureAt != observed) {
      pressureByModel.clear();
      pressureAt = observed;
    }
    Double cached = pressureByModel.get(model);
    if (cached != null) {
      return cached;
    }
    double p = 0;
    String m = model.toLowerCase(Locale.ROOT);
    if (gpuSeen > 0 && supplyByModel.containsKey(m)) {
      boolean asked = false;
      for (Map.Entry<Set<String>, double[]> e : restrictedDemand.entrySet()) {
        Set<String> allowed = e.getKey();
        if (!allows(allowed, m)) {
          continue;
        }
        asked = true;
        double usable = 0;
        for (Map.Entry<String, Long> s : supplyByModel.entrySet()) {
          if (allows(allowed, s.getKey())) {
            usable += s.getValue();
          }
        }
        p += (e.getValue()[0] / gpuSeen) / (usable / supplyTotal);
      }
      if (!asked) {
        p = unaskedDemand() / gpuSeen / (supplyByModel.get(m) / supplyTotal);
      }
    }
    pressureByModel.put(model, p);
    return p;
  }

  /**
   * The restricted demand (milli) assumed for a model that no observed restricted pod may use: as
   * much as the models that were asked for got on average (the restricted demand observed ÷ the
   * number of the cluster's models some restricted pod may use), and at least one whole GPU ({@link
   * #UNASKED_DEMAND_MILLI}). Its pressure is that demand's share of all observed demand against the
   * model's share of the cluster: dear early on and for a small model, so unrestricted pods leave
   * its GPUs whole for the first pods that will need it; it fades as demand is observed without
   * anyone asking for the model. Example: 27 GPUs of demand observed, 2.7 of them restricted to G2
   * only, and an A10 model with 11% of the cluster: 2,700 / 27,000 / 0.11 = 0.9, where G2 (89%) has
   * 0.1 / 0.89 = 0.11.
   */
  private double unaskedDemand() {
    double restricted = 0;
    for (double[] d : restrictedDemand.values()) {
      restricted += d[0];
    }
    int askedModels = 0;
    for (String model : supplyByModel.keySet()) {
      for (Set<String> allowed : restrictedDemand.keySet()) {
        if (allows(allowed, model)) {
          askedModels++;
          break;
        }
      }
    }
    return Math.max(UNASKED_DEMAND_MILLI, askedModels == 0 ? 0 : restricted / askedModels);
  }

  /** Whether a pod restricted to {@code models} (lower case) may use this model (lower case). */
  private static boolean allows(Set<String> models, String lowerModel) {
    for (String x : models) {
      if (lowerModel.contains(x)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
    double s = score(view, grant, pod.cpuMilli(), pod.memoryMib());
    if (reserveWeight != 0 && pod.models().isEmpty() && supplyTotal > 0 && gpuSeen > 0) {
      s -= reserveWeight * reservedCharge(view, grant);
    }
    return s;
  }

  /** {@link #score} from the candidate's arrays, with the same arithmetic in the same order. */
  @Override
  public double scoreCandidate(NodeView view, PodDemand pod, CandidateGrant candidate) {
    long cpuMilli = pod.cpuMilli();
    double s =
        scoreAfter(
            view, index.after(view, workload, candidate, cpuMilli), cpuMilli, pod.memoryMib());
    if (reserveWeight != 0 && pod.models().isEmpty() && supplyTotal > 0 && gpuSeen > 0) {
      s -= reserveWeight * reservedCharge(view, candidate);
    }
    return s;
  }

  /** As {@link #reservedCharge(NodeView, List)}, from the candidate's arrays. */
  private double reservedCharge(NodeView view, CandidateGrant candidate) {
    double charge = 0;
    List<GpuUsage> gpus = view.gpus();
    for (int c = 0, cn = candidate.containers(); c < cn; c++) {
      for (int k = candidate.start(c), end = k + candidate.granted(c); k < end; k++) {
        int i = candidate.gpu(k);
        if (i >= 0 && i < gpus.size()) {
          charge += candidate.computeMilli(k) * pressure(gpus.get(i).gpu().model());
        }
      }
    }
    return charge;
  }

  /** Σ over the grant's GPUs of the compute taken × the pressure of the GPU's model. */
  private double reservedCharge(NodeView view, List<ContainerGrant> grant) {
    double charge = 0;
    List<GpuUsage> gpus = view.gpus();
    for (int c = 0, cn = grant.size(); c < cn; c++) {
      List<GpuGrant> gg = grant.get(c).gpus();
      for (int k = 0, kn = gg.size(); k < kn; k++) {
        GpuGrant x = gg.get(k);
        int i = NodeState.position(view, x.uuid());
        if (i >= 0) {
          charge += x.computeMilli() * pressure(gpus.get(i).gpu().model());
        }
      }
    }
    return charge;
  }

  @Override
  public double scoreHostOnly(NodeView view, long cpuMilli, long memoryMib) {
    return score(view, List.of(), cpuMilli, memoryMib);
  }

  private double score(NodeView view, List<ContainerGrant> grant, long cpuMilli, long memoryMib) {
    return scoreAfter(view, index.after(view, workload, grant, cpuMilli), cpuMilli, memoryMib);
  }

  /**
   * The score once {@link FragmentIndex#after} has given the fragment after the placement (and
   * noted the free GPU and CPU after it).
   */
  private double scoreAfter(NodeView view, double fragmentAfter, long cpuMilli, long memoryMib) {
    int freeAfter = index.lastTotalFree();
    double tie = -freeAfter * 1e-6 - (index.lastCpuTracked() ? index.lastFreeCpu() * 1e-12 : 0);
    if (workload.total() == 0) {
      return tie * 1e6;
    }
    double growth = fragmentAfter - index.before(view, workload);
    if (strandWeight != 0) {
      growth += strandWeight * strandingGrowth(view, freeAfter, cpuMilli, memoryMib);
    }
    return -growth + tie;
  }

  /** How much the stranded GPU compute of the node grows when the pod takes its resources. */
  private double strandingGrowth(NodeView view, int freeAfter, long cpuMilli, long memoryMib) {
    boolean cpuTracked = view.node().cpuMilli() > 0 && cpuSeen > 0;
    boolean memoryTracked = view.node().memoryMib() > 0 && memorySeen > 0;
    if (!cpuTracked && !memoryTracked) {
      return 0;
    }
    int freeBefore = 0;
    List<GpuUsage> gpus = view.gpus();
    for (int i = 0, n = gpus.size(); i < n; i++) {
      GpuUsage u = gpus.get(i);
      if (u.gpu().healthy() && !u.gpu().cordoned() && !u.exclusive()) {
        freeBefore += u.freeMilli();
      }
    }
    long cpu = view.freeCpuMilli();
    long memory = view.freeMemoryMib();
    double before = stranded(freeBefore, cpu, cpuTracked, memory, memoryTracked);
    double after =
        stranded(
            freeAfter,
            Math.max(0, cpu - cpuMilli),
            cpuTracked,
            Math.max(0, memory - memoryMib),
            memoryTracked);
    return after - before;
  }

  /** Free GPU compute (milli) that this much free host CPU and memory cannot feed. */
  private double stranded(
      int freeGpu, long freeCpu, boolean cpuTracked, long freeMemory, boolean memoryTracked) {
    double s = 0;
    if (cpuTracked) {
      s = Math.max(s, freeGpu - freeCpu * gpuSeen / strandCpu());
    }
    if (memoryTracked) {
      s = Math.max(s, freeGpu - freeMemory * gpuSeen / memorySeen);
    }
    return s;
  }

  @Override
  public double gpuScore(
      Gpu gpu, int usedMilli, long usedMemoryMib, int addMilli, long addMemoryMib) {
    double bestFit = -(gpu.computeMilli() - usedMilli) * 1e-6;
    if (workload.total() == 0) {
      return bestFit;
    }
    return -index.gpuGrowth(workload, gpu, usedMilli, addMilli) + bestFit;
  }
}
