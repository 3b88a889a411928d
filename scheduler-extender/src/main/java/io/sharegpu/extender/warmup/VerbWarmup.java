package io.sharegpu.extender.warmup;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.extender.bind.BindOutcome;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.preempt.DisruptionBudgets;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.extender.scheduling.SchedulingState;
import io.sharegpu.extender.web.ExtenderArgs;
import io.sharegpu.extender.web.ExtenderFilterResult;
import io.sharegpu.extender.web.ExtenderHandler;
import io.sharegpu.extender.web.HostPriority;
import io.sharegpu.extender.web.WireCodec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs the filter and prioritize path — JSON decode, the mapper, the placement policy, the answer's
 * encoding — a few thousand times over a private made-up cluster before the extender reports ready,
 * so that the JIT has compiled it when kube-scheduler's first pods arrive instead of during them
 * (on a 2-core node the first thousands of real requests otherwise run interpreted or in C1 code,
 * several times slower).
 *
 * <p>Nothing of the real extender is touched: the warm-up has its own policy instance (policies
 * learn from the pods they see), its own scheduling state and ledger, metrics that go nowhere, no
 * events and no binds.
 */
public final class VerbWarmup {

  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final String A100 = "NVIDIA A100-SXM4-40GB";
  private static final int NODES = 48;

  private final WireCodec codec;
  private final ExtenderHandler handler;
  private final SchedulingState state;
  private final List<byte[]> bodies;

  VerbWarmup(WireCodec codec, PlacementPolicy policy) {
    this.codec = codec;
    this.state = new SchedulingState(policy, Duration.ofDays(1), Clock.systemUTC());
    ExtenderMetrics metrics = ExtenderMetrics.inMemory();
    this.handler =
        new ExtenderHandler(
            state,
            (namespace, name, uid, node) ->
                BindOutcome.failed("warm-up", "the warm-up never binds"),
            new PodEvents(null),
            metrics,
            null,
            new Preemption(
                state, new ClusterFeed(null, state), DisruptionBudgets.none(), Clock.systemUTC()));
    List<String> names = new ArrayList<>();
    for (int n = 0; n < NODES; n++) {
      String name = "warm-up-" + n;
      names.add(name);
      boolean small = n % 4 == 3;
      state.putNode(node(name, small ? A100 : H100, small ? 4 : 8, small ? 40960 : 81559));
    }
    state.markReady();
    this.bodies = new ArrayList<>();
    int[][] shapes = {
      {100, 4096},
      {250, 10240},
      {300, 0},
      {500, 20480},
      {700, 30000},
      {900, 0},
      {1000, 0},
      {2000, 0},
      {150, 2048},
      {400, 16384}
    };
    for (int i = 0; i < shapes.length; i++) {
      String model = i % 5 == 4 ? "A100" : null;
      Pod pod = pod("warm-up-" + i, shapes[i][0], shapes[i][1], model);
      bodies.add(codec.write(new ExtenderArgs(pod, null, names)).getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * Runs {@code cycles} filter + prioritize calls with a fresh instance of the extender's policy.
   *
   * @param policy makes a new instance of the policy the extender runs
   * @return how long the warm-up took
   */
  public static Duration run(WireCodec codec, Supplier<PlacementPolicy> policy, int cycles) {
    long start = System.nanoTime();
    if (cycles > 0) {
      new VerbWarmup(codec, policy.get()).cycles(cycles);
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** Runs the cycles; returns how many of them found feasible nodes and scored one above 0. */
  int cycles(int cycles) {
    int answered = 0;
    for (int i = 0; i < cycles; i++) {
      byte[] body = bodies.get(i % bodies.size());
      ExtenderFilterResult filtered = handler.filter(codec.readCheckedArgs(body));
      codec.writeFilterResult(filtered);
      List<HostPriority> scored = handler.prioritize(codec.readCheckedArgs(body));
      codec.writePriorities(scored);
      List<String> feasible = filtered.nodeNames();
      if (feasible != null && !feasible.isEmpty() && scored.stream().anyMatch(p -> p.score() > 0)) {
        answered++;
      }
    }
    state.close();
    return answered;
  }

  /** The private state's current allocations (for tests). */
  SchedulingState state() {
    return state;
  }

  private static GpuNode node(String name, String model, int gpus, long memoryMib) {
    List<Gpu> list = new ArrayList<>(gpus);
    for (int g = 0; g < gpus; g++) {
      list.add(Gpu.whole("GPU-" + name + "-" + g, g, model, memoryMib));
    }
    return new GpuNode(name, list, 0, 0);
  }

  private static Pod pod(String name, int milli, long memoryMib, String model) {
    Map<String, Quantity> limits = new HashMap<>();
    limits.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(milli)));
    if (memoryMib > 0) {
      limits.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(memoryMib)));
    }
    Map<String, String> annotations = new HashMap<>();
    if (model != null) {
      annotations.put(ShareGpuAnnotations.GPU_MODELS, model);
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("sharegpu-warm-up")
        .withUid("warm-up-" + name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(ShareGpuAnnotations.SCHEDULER_NAME)
        .addNewContainer()
        .withName("main")
        .withImage("warm-up")
        .withNewResources()
        .withLimits(limits)
        .withRequests(limits)
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }
}
