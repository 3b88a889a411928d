package io.sharegpu.benchmarks;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.preemption.PreemptionCandidate;
import io.sharegpu.core.preemption.PreemptionPlan;
import io.sharegpu.core.preemption.ShortfallClassifier;
import io.sharegpu.core.preemption.VictimSelector;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.simulator.LatencyFills;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The preempt verb's core: {@link VictimSelector#select} on every node of a cluster of 5,000 nodes
 * of 8 H100s, each GPU full (one whole-GPU pod, or shares of 100m..400m until less than 100m is
 * left: about 30 pods per node), every pod a candidate of priority 0..2 with a random GPU time, for
 * a preemptor of priority 10. Reported per node (µs). {@code shape}: a 500m share with its default
 * memory, one whole GPU, two whole GPUs. {@code classify} times {@link ShortfallClassifier} per
 * node for the same pods.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PreemptionBenchmark {
  private static final int NODES = 5000;

  @Param({"share", "whole1", "whole2"})
  String shape;

  private VictimSelector selector;
  private ShortfallClassifier classifier;
  private String[] names;
  private List<List<PreemptionCandidate>> candidates;
  private PodDemand pod;

  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    List<GpuNode> nodes = LatencyFills.nodes(NODES, 8);
    List<Allocation> all = new ArrayList<>();
    List<Integer> priorities = new ArrayList<>();
    List<Long> lost = new ArrayList<>();
    int uid = 0;
    for (GpuNode node : nodes) {
      for (Gpu gpu : node.gpus()) {
        if (r.nextInt(5) == 0) {
          all.add(LatencyFills.alloc("p" + uid++, node.name(), gpu, 1000, LatencyFills.MEMORY_MIB));
          continue;
        }
        int left = 1000;
        while (left >= 100) {
          int m = Math.min(left, 100 * (1 + r.nextInt(4)));
          long mem = m * LatencyFills.MEMORY_MIB / 1000; // rounded down: the shares add up
          all.add(LatencyFills.alloc("p" + uid++, node.name(), gpu, m, mem));
          left -= m;
        }
      }
    }
    for (int i = 0; i < all.size(); i++) {
      priorities.add(r.nextInt(3));
      lost.add(1000L * r.nextInt(3600));
    }
    Ledger ledger = LatencyFills.ledger(nodes, all);
    Placement placement = new Placement(ledger, PolicyRegistry.ALL.create("binpack", 42));
    selector = new VictimSelector(ledger, placement);
    classifier = new ShortfallClassifier(ledger);
    names = new String[NODES];
    candidates = new ArrayList<>(NODES);
    int k = 0;
    for (int n = 0; n < NODES; n++) {
      names[n] = nodes.get(n).name();
      List<PreemptionCandidate> list = new ArrayList<>();
      for (Allocation a : ledger.allocations(names[n])) {
        list.add(new PreemptionCandidate(a, priorities.get(k), false, lost.get(k)));
        k++;
      }
      candidates.add(list);
    }
    GpuDemand demand =
        switch (shape) {
          case "whole1" -> GpuDemand.whole("main", 1, 0);
          case "whole2" -> GpuDemand.whole("main", 2, 0);
          default -> GpuDemand.share("main", 500, 0);
        };
    pod = PodDemand.of("bench/preemptor", "preemptor", demand);
  }

  @Benchmark
  @OperationsPerInvocation(NODES)
  public void select(Blackhole bh) {
    for (int n = 0; n < NODES; n++) {
      PreemptionPlan plan = selector.select(pod, 10, names[n], candidates.get(n));
      bh.consume(plan);
    }
  }

  @Benchmark
  @OperationsPerInvocation(NODES)
  public void classify(Blackhole bh) {
    for (int n = 0; n < NODES; n++) {
      bh.consume(classifier.classify(pod, names[n]));
    }
  }
}
