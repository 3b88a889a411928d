package io.sharegpu.core.ledger;

import static io.sharegpu.core.Fixtures.H100_MIB;
import static io.sharegpu.core.Fixtures.h100Node;
import static io.sharegpu.core.Fixtures.share;
import static io.sharegpu.core.Fixtures.uuid;
import static io.sharegpu.core.Fixtures.whole;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LedgerTest {

  private static Ledger twoGpus() {
    Ledger l = new Ledger();
    l.putNode(h100Node("n1", 2));
    return l;
  }

  static Stream<Arguments> refusedCommits() {
    String g0 = uuid("n1", 0);
    return Stream.of(
        Arguments.of(
            "compute over capacity",
            (Consumer<Ledger>) l -> l.commit(share("a", "n1", g0, 700, 1000)),
            share("b", "n1", g0, 400, 1000),
            "over its compute: 700m held + 400m asked > 1000m"),
        Arguments.of(
            "memory over capacity",
            (Consumer<Ledger>) l -> l.commit(share("a", "n1", g0, 100, 80000)),
            share("b", "n1", g0, 100, 2000),
            "over its memory"),
        Arguments.of(
            "share on a GPU held whole",
            (Consumer<Ledger>) l -> l.commit(whole("a", "n1", H100_MIB, g0)),
            share("b", "n1", g0, 100, 10),
            "is held whole by ns/a"),
        Arguments.of(
            "whole on a GPU in use",
            (Consumer<Ledger>) l -> l.commit(share("a", "n1", g0, 100, 10)),
            whole("b", "n1", H100_MIB, g0),
            "it is in use by ns/a"),
        Arguments.of(
            "unknown node",
            (Consumer<Ledger>) l -> {},
            share("b", "n9", g0, 100, 10),
            "node n9 has no known GPUs"),
        Arguments.of(
            "unknown GPU",
            (Consumer<Ledger>) l -> {},
            share("b", "n1", "GPU-nope", 100, 10),
            "GPU GPU-nope is not on node n1"),
        Arguments.of(
            "uid already holds an allocation",
            (Consumer<Ledger>) l -> l.commit(share("b", "n1", g0, 100, 10)),
            share("b", "n1", uuid("n1", 1), 100, 10),
            "already holds GPUs on node n1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedCommits")
  void refusesCommitThatBreaksTheInvariant(
      String name, Consumer<Ledger> before, Allocation a, String message) {
    Ledger l = twoGpus();
    before.accept(l);
    List<GpuUsage> usageBefore = l.usage("n1");
    assertThatThrownBy(() -> l.commit(a))
        .isInstanceOf(OverCommitException.class)
        .hasMessageContaining(message);
    assertThat(l.usage("n1")).isEqualTo(usageBefore);
  }

  @Test
  void twoContainersOfOnePodOverOneGpuAreSummed() {
    Ledger l = twoGpus();
    String g0 = uuid("n1", 0);
    Allocation a =
        new Allocation(
            "ns/p",
            "p",
            "n1",
            List.of(
                new ContainerGrant("a", List.of(new GpuGrant(g0, 600, 10)), 600),
                new ContainerGrant("b", List.of(new GpuGrant(g0, 500, 10)), 500)),
            AllocationState.RESERVED);
    assertThatThrownBy(() -> l.commit(a)).hasMessageContaining("1100m asked");
  }

  @Test
  void commitAndReleaseKeepUsageInStep() {
    Ledger l = twoGpus();
    String g0 = uuid("n1", 0);
    l.commit(share("a", "n1", g0, 300, 1000));
    l.commit(share("b", "n1", g0, 200, 500));
    GpuUsage u = l.usage("n1").get(0);
    assertThat(u.usedMilli()).isEqualTo(500);
    assertThat(u.usedMemoryMib()).isEqualTo(1500);
    assertThat(u.freeMilli()).isEqualTo(500);
    assertThat(u.podKeys()).containsExactly("ns/a", "ns/b");
    assertThat(u.exclusive()).isFalse();

    assertThat(l.release("a")).isPresent();
    u = l.usage("n1").get(0);
    assertThat(u.usedMilli()).isEqualTo(200);
    assertThat(u.podKeys()).containsExactly("ns/b");
    assertThat(l.release("a")).isEmpty();
    l.release("b");
    assertThat(l.usage("n1").get(0).isIdle()).isTrue();
    assertThat(l.usage("n1").get(0).usedMemoryMib()).isZero();
  }

  @Test
  void terminatingAllocationStillHoldsItsGpus() {
    Ledger l = twoGpus();
    String g0 = uuid("n1", 0);
    l.commit(whole("a", "n1", H100_MIB, g0));
    l.setState("a", AllocationState.TERMINATING);
    assertThat(l.allocation("a").orElseThrow().state()).isEqualTo(AllocationState.TERMINATING);
    assertThat(l.usage("n1").get(0).exclusive()).isTrue();
    assertThatThrownBy(() -> l.commit(share("b", "n1", g0, 1, 1)))
        .isInstanceOf(OverCommitException.class);
    l.release("a");
    l.commit(share("b", "n1", g0, 1, 1));
  }

  @Test
  void setStateOfUnknownUidIsRefused() {
    assertThatThrownBy(() -> twoGpus().setState("x", AllocationState.BOUND))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("x");
  }

  @Test
  void putNodeKeepsAllocationsOnGpusThatStillExist() {
    Ledger l = twoGpus();
    l.commit(share("a", "n1", uuid("n1", 0), 300, 1000));
    l.commit(share("b", "n1", uuid("n1", 1), 400, 1000));
    GpuNode replaced =
        GpuNode.of(
            "n1",
            List.of(
                Gpu.whole(uuid("n1", 0), 0, "NVIDIA H100 80GB HBM3", H100_MIB).withHealthy(false)));
    l.putNode(replaced);
    assertThat(l.usage("n1")).hasSize(1);
    assertThat(l.usage("n1").get(0).usedMilli()).isEqualTo(300);
    assertThat(l.usage("n1").get(0).gpu().healthy()).isFalse();
    assertThat(l.allocations()).hasSize(2);
    l.putNode(h100Node("n1", 2));
    assertThat(l.usage("n1").get(1).usedMilli()).isEqualTo(400);
  }

  @Test
  void removedNodeComesBackWithItsAllocations() {
    Ledger l = twoGpus();
    l.commit(share("a", "n1", uuid("n1", 0), 300, 1000));
    l.removeNode("n1");
    assertThat(l.node("n1")).isEmpty();
    assertThat(l.usage("n1")).isEmpty();
    l.putNode(h100Node("n1", 2));
    assertThat(l.usage("n1").get(0).usedMilli()).isEqualTo(300);
    l.release("a");
    assertThat(l.usage("n1").get(0).usedMilli()).isZero();
  }

  @Test
  void copyIsIndependent() {
    Ledger l = twoGpus();
    l.commit(share("a", "n1", uuid("n1", 0), 300, 1000));
    Ledger c = l.copy();
    c.commit(share("b", "n1", uuid("n1", 0), 300, 1000));
    l.release("a");
    assertThat(l.usage("n1").get(0).usedMilli()).isZero();
    assertThat(c.usage("n1").get(0).usedMilli()).isEqualTo(600);
    assertThat(c.allocations()).hasSize(2);
  }

  @Test
  void hostResourcesAreCountedOnNodesThatTrackThem() {
    Ledger l = new Ledger();
    l.putNode(new GpuNode("n1", h100Node("n1", 1).gpus(), 8000, 64000));
    l.commit(share("a", "n1", uuid("n1", 0), 100, 10), 6000, 1000);
    assertThatThrownBy(() -> l.commit(share("b", "n1", uuid("n1", 0), 100, 10), 3000, 1000))
        .hasMessageContaining("over its CPU");
    l.release("a");
    l.commit(share("b", "n1", uuid("n1", 0), 100, 10), 3000, 1000);
    assertThat(l.nodeUsage("n1").usedCpuMilli()).isEqualTo(3000);
  }

  @Test
  void usageWithoutReleasesTheGivenPodsOnACopyOnly() {
    Ledger l = new Ledger();
    l.putNode(new GpuNode("n1", List.of(Gpu.whole(uuid("n1", 0), 0, "H100", 80000)), 8000, 0));
    l.commit(share("a", "n1", uuid("n1", 0), 300, 1000), 2000, 0);
    l.commit(share("b", "n1", uuid("n1", 0), 200, 500));
    long version = l.version();

    NodeUsage without = l.usageWithout("n1", List.of("a", "a", "not-here")).orElseThrow();

    assertThat(without.usedMilli(0)).isEqualTo(200);
    assertThat(without.usedMemoryMib(0)).isEqualTo(500);
    assertThat(without.holders(0)).containsExactly("ns/b");
    assertThat(without.usedCpuMilli()).isZero();
    NodeUsage live = l.nodeUsage("n1");
    assertThat(live.usedMilli(0)).isEqualTo(500);
    assertThat(live.usedCpuMilli()).isEqualTo(2000);
    assertThat(live.holders(0)).containsExactly("ns/a", "ns/b");
    assertThat(l.version()).isEqualTo(version);
    assertThat(l.usageWithout("n9", List.of("a"))).isEmpty();
  }
}
