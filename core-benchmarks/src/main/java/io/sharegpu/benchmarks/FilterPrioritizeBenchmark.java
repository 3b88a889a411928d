package io.sharegpu.benchmarks;

import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.FilterResult;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.simulator.LatencyFills;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the extender does for one pod: {@code filter} then {@code prioritize} over every node of a
 * cluster filled as {@code fill} says ({@link LatencyFills#filled}: synthetic, placed from the
 * trace pod list {@code trace} by the policy, or every node distinct) to {@code occupancy}% of its
 * compute (synthetic: 64% as filled at 70), for a new pod each time that the policy has just
 * observed (so the workload model has changed, as it does for every pod). {@code sameNames} passes
 * the very node-name objects of the ledger and prioritizes the filter's feasible list (an
 * in-process caller); {@code requestNames} passes fresh copies of the names each time, as an HTTP
 * request brings them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(1)
public class FilterPrioritizeBenchmark {
  @Param({"1000", "5000"})
  int nodes;

  @Param({"sharegpu"})
  String policy;

  @Param({"synthetic", "trace", "distinct"})
  String fill;

  @Param({"70"})
  int occupancy;

  /** The pod list of the trace fill, from the repository's root. */
  @Param({"../shared/traces/alibaba-gpu-v2023/csv/openb_pod_list_default.csv"})
  String trace;

  private Placement placement;
  private PlacementPolicy scoring;
  private List<String> names;
  private SplittableRandom random;
  private PodDemand pod;
  private int count;

  @Setup(Level.Trial)
  public void setUp() throws java.io.IOException {
    random = new SplittableRandom(42);
    List<GpuNode> list = LatencyFills.nodes(nodes, 8);
    scoring = PolicyRegistry.ALL.create(policy, 42);
    Ledger ledger =
        LatencyFills.filled(
            fill.equals("trace") ? "trace:" + trace : fill,
            list,
            occupancy / 100.0,
            scoring,
            random);
    names = new ArrayList<>(ledger.nodeNames());
    for (int i = 0; i < 1000; i++) {
      scoring.observe(LatencyFills.mix(random, "warm-" + i));
    }
    placement = new Placement(ledger, scoring);
  }

  @Setup(Level.Invocation)
  public void nextPod() {
    pod = LatencyFills.mix(random, "p-" + count++);
    scoring.observe(pod);
  }

  @Benchmark
  public Map<String, Integer> sameNames() {
    FilterResult fr = placement.filter(pod, names);
    return placement.prioritize(pod, fr.feasible());
  }

  @Benchmark
  public Map<String, Integer> requestNames() {
    List<String> filterNames = copies(names);
    FilterResult fr = placement.filter(pod, filterNames);
    return placement.prioritize(pod, copies(fr.feasible()));
  }

  private static List<String> copies(List<String> names) {
    List<String> out = new ArrayList<>(names.size());
    for (String n : names) {
      out.add(new String(n.toCharArray()));
    }
    return out;
  }
}
