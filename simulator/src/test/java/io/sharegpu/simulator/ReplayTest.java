package io.sharegpu.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplayTest {

  private static final List<TraceNode> NODES =
      List.of(
          new TraceNode("n-0", 16000, 65536, 2, "T4"), new TraceNode("n-1", 16000, 65536, 2, "T4"));

  private static TracePod pod(String name, long cpu, int num, int milli) {
    return new TracePod(name, cpu, 1024, num, milli, Set.of());
  }

  @Test
  void arrivalsReach130PercentWithCopies() {
    List<TracePod> pods =
        List.of(pod("a", 1000, 1, 1000), pod("b", 1000, 1, 500), pod("c", 1000, 0, 0));
    Replay r = new Replay(NODES, pods);
    List<Replay.Arrival> arrivals = r.arrivals(new Random(42));
    long total = arrivals.stream().mapToLong(a -> a.pod().gpuRequestMilli()).sum();
    assertThat(total).isGreaterThanOrEqualTo(r.capacityMilli() * 13 / 10);
    long withoutLast = total - arrivals.get(arrivals.size() - 1).pod().gpuRequestMilli();
    assertThat(withoutLast).isLessThan(r.capacityMilli() * 13 / 10);
    assertThat(arrivals.subList(0, 3)).extracting(Replay.Arrival::copy).containsOnly(0);
    assertThat(arrivals).extracting(Replay.Arrival::name).doesNotHaveDuplicates();
  }

  @Test
  void aLongListLosesPodsDownTo130Percent() {
    List<TracePod> pods = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pods.add(pod("p" + i, 0, 1, 1000));
    }
    Replay r = new Replay(NODES, pods);
    assertThat(r.arrivals(new Random(1))).hasSize(5);
  }

  @Test
  void wholeGpusThatAllFitLeaveNothingUnallocatedAt100() {
    // four 1-GPU pods fill the four GPUs exactly; arrived reaches 100% with all of them placed
    List<TracePod> pods =
        List.of(
            pod("a", 1000, 1, 1000),
            pod("b", 1000, 1, 1000),
            pod("c", 1000, 1, 1000),
            pod("d", 1000, 1, 1000));
    SeedResult s = new Replay(NODES, pods).run("bestfit", 42);
    assertThat(s.unallocatedPctAt100()).isEqualTo(0.0);
    assertThat(s.allocationRatioPctAt100()).isEqualTo(100.0);
    // copies (to 130%) find no room
    assertThat(s.placed()).isEqualTo(4);
    assertThat(s.failed()).isEqualTo(s.pods() - 4);
    // the curve at 130%: still 0 unallocated
    assertThat(s.curve()[s.curve().length - 1]).isEqualTo(0.0);
  }

  @Test
  void cpuIsAConstraint() {
    // each node has 16 cores; pods of 10 cores fit one per node although GPUs are free
    List<TracePod> pods =
        List.of(
            pod("a", 10000, 1, 500),
            pod("b", 10000, 1, 500),
            pod("c", 10000, 1, 500),
            pod("d", 10000, 1, 500),
            pod("e", 10000, 1, 500),
            pod("f", 10000, 1, 500),
            pod("g", 10000, 1, 500),
            pod("h", 10000, 1, 500));
    SeedResult s = new Replay(NODES, pods).run("bestfit", 7);
    // arrived 100% after the 8th pod; only two fit: 1000 of 4000 allocated
    assertThat(s.unallocatedPctAt100()).isCloseTo(75.0, within(1e-9));
    assertThat(s.allocationRatioPctAt100()).isCloseTo(25.0, within(1e-9));
  }

  @Test
  void cpuOnlyPodsTakeCpuFromGpuPods() {
    // a 15-core CPU pod on each node leaves 1 core: the GPU pods (2 cores) fit nowhere
    List<TracePod> pods = new ArrayList<>(List.of(pod("a0", 15000, 0, 0), pod("a1", 15000, 0, 0)));
    for (int i = 0; i < 4; i++) {
      pods.add(pod("g" + i, 2000, 1, 1000));
    }
    Replay r = new Replay(NODES, pods);
    List<Replay.Arrival> arrivals = r.arrivals(new Random(3));
    SeedResult s = r.run("packing", 3);
    // whichever comes first takes the node: never all four GPU pods and both CPU pods
    assertThat(s.placed()).isLessThan(arrivals.size());
    assertThat(s.unallocatedPctAt100()).isGreaterThan(0.0);
  }

  @Test
  void fragmentationRateAt80UsesTheWholeTracesShapes() {
    // only 600m shares: after one per GPU, 400m slivers remain, all of them fragments
    List<TracePod> pods = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      pods.add(pod("s" + i, 100, 1, 600));
    }
    SeedResult s = new Replay(NODES, pods).run("bestfit", 42);
    // at 80% arrived (6 pods, 3600m), four GPUs hold one 600m pod each... at most: fragment rate is
    // then 100% (every free milli is below 600m) or lower while an idle GPU remains
    assertThat(s.fragmentationRatePctAt80()).isBetween(0.0, 100.0);
    assertThat(s.unallocatedPctAt100()).isCloseTo(40.0, within(1e-9));
  }

  @Test
  void sameSeedSameResult() {
    List<TracePod> pods = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      pods.add(pod("s" + i, 500, 1, 100 * (1 + i % 9)));
    }
    Replay r = new Replay(NODES, pods);
    assertThat(r.run("random", 5).unallocatedPctAt100())
        .isEqualTo(r.run("random", 5).unallocatedPctAt100());
    assertThat(r.run("sharegpu", 5).curve()).containsExactly(r.run("sharegpu", 5).curve());
  }
}
