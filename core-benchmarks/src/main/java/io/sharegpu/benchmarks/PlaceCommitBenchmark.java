package io.sharegpu.benchmarks;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.core.request.PodDemand;
import io.sharegpu.simulator.LatencyFills;
import java.util.List;
import java.util.Optional;
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
 * What the simulator does per pod, and the extender's bind: {@code place} (the policy's best node
 * and grant over all nodes), {@code commit} to the ledger, then {@code release} so that the cluster
 * stays at its occupancy; and {@code choose} + commit + release on one given node (bind).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(1)
public class PlaceCommitBenchmark {
  @Param({"1000"})
  int nodes;

  @Param({"sharegpu"})
  String policy;

  private Ledger ledger;
  private Placement placement;
  private PlacementPolicy scoring;
  private List<GpuNode> list;
  private SplittableRandom random;
  private PodDemand pod;
  private String node;
  private int count;

  @Setup(Level.Trial)
  public void setUp() {
    random = new SplittableRandom(42);
    list = LatencyFills.nodes(nodes, 8);
    ledger = LatencyFills.ledger(list, LatencyFills.synthetic(list, 0.7, random));
    scoring = PolicyRegistry.ALL.create(policy, 42);
    for (int i = 0; i < 1000; i++) {
      scoring.observe(LatencyFills.mix(random, "warm-" + i));
    }
    placement = new Placement(ledger, scoring);
  }

  @Setup(Level.Invocation)
  public void nextPod() {
    pod = LatencyFills.mix(random, "p-" + count++);
    scoring.observe(pod);
    node = list.get(random.nextInt(list.size())).name();
  }

  @Benchmark
  public Optional<Allocation> placeCommitRelease() {
    Optional<Allocation> a = placement.place(pod);
    if (a.isPresent()) {
      ledger.commit(a.get());
      ledger.release(pod.podUid());
    }
    return a;
  }

  @Benchmark
  public Optional<Allocation> chooseCommitRelease() {
    Optional<Allocation> a = placement.choose(pod, node);
    if (a.isPresent()) {
      ledger.commit(a.get());
      ledger.release(pod.podUid());
    }
    return a;
  }
}
