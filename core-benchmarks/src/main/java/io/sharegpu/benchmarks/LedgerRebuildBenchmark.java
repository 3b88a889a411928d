package io.sharegpu.benchmarks;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.simulator.LatencyFills;
import java.util.List;
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
 * Rebuilding the ledger from scratch, as the extender does when it starts or resynchronises: every
 * node put, every allocation committed (with its checks); and {@code copy}, a snapshot of it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(1)
public class LedgerRebuildBenchmark {
  @Param({"5000"})
  int nodes;

  private List<GpuNode> list;
  private List<Allocation> allocations;
  private Ledger built;

  @Setup(Level.Trial)
  public void setUp() {
    list = LatencyFills.nodes(nodes, 8);
    allocations = LatencyFills.synthetic(list, 0.7, new SplittableRandom(42));
    built = LatencyFills.ledger(list, allocations);
  }

  @Benchmark
  public Ledger rebuild() {
    return LatencyFills.ledger(list, allocations);
  }

  @Benchmark
  public Ledger copy() {
    return built.copy();
  }
}
