package io.sharegpu.core.ledger;

import static io.sharegpu.core.Fixtures.A100;
import static io.sharegpu.core.Fixtures.A100_MIB;
import static io.sharegpu.core.Fixtures.H100;
import static io.sharegpu.core.Fixtures.H100_MIB;
import static io.sharegpu.core.Fixtures.share;
import static io.sharegpu.core.Fixtures.whole;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeStateClassTest {

  /** A node with an A100 and two H100s, listed in the order of {@code models}. */
  private static GpuNode node(String name, String... models) {
    List<Gpu> gpus = new ArrayList<>();
    for (int i = 0; i < models.length; i++) {
      long mib = models[i].equals(A100) ? A100_MIB : H100_MIB;
      gpus.add(Gpu.whole(name + "-g" + i, i, models[i], mib));
    }
    return GpuNode.of(name, gpus);
  }

  @Test
  void nodesWithTheSameGpusInAnotherOrderShareAClass() {
    Ledger l = new Ledger();
    l.putNode(node("a", A100, H100, H100));
    l.putNode(node("b", H100, H100, A100));
    l.commit(share("p1", "a", "a-g1", 300, 1000));
    l.commit(share("p2", "b", "b-g0", 300, 1000));

    assertThat(l.nodeUsage("a").stateClass()).isEqualTo(l.nodeUsage("b").stateClass());
    assertThat(l.nodeUsage("a").sameState(1, 2)).isFalse();
    assertThat(l.nodeUsage("b").sameState(0, 0)).isTrue();
  }

  @Test
  void classChangesWithUseModelAndHostResources() {
    Ledger l = new Ledger();
    l.putNode(node("a", H100, H100));
    l.putNode(node("b", H100, H100));
    l.putNode(node("c", A100, H100));
    int idle = l.nodeUsage("a").stateClass();
    assertThat(l.nodeUsage("b").stateClass()).isEqualTo(idle);
    assertThat(l.nodeUsage("c").stateClass()).isNotEqualTo(idle);

    long generation = l.nodeUsage("a").generation();
    l.commit(share("p1", "a", "a-g0", 300, 1000));
    assertThat(l.nodeUsage("a").generation()).isGreaterThan(generation);
    int used = l.nodeUsage("a").stateClass();
    assertThat(used).isNotEqualTo(idle);

    // same compute, other memory: another class
    l.commit(share("p2", "b", "b-g1", 300, 2000));
    assertThat(l.nodeUsage("b").stateClass()).isNotEqualTo(used);
    l.release("p2");
    assertThat(l.nodeUsage("b").stateClass()).isEqualTo(idle);

    // held whole differs from shares that fill the GPU
    l.commit(whole("p3", "b", H100_MIB, "b-g1"));
    l.release("p1");
    l.commit(share("p4", "a", "a-g0", 500, 40000));
    l.commit(share("p7", "a", "a-g0", 500, H100_MIB - 40000));
    assertThat(l.nodeUsage("a").stateClass()).isNotEqualTo(l.nodeUsage("b").stateClass());

    // host CPU counts
    l.putNode(new GpuNode("d", node("d", H100, H100).gpus(), 8000, 0));
    l.putNode(new GpuNode("e", node("e", H100, H100).gpus(), 8000, 0));
    assertThat(l.nodeUsage("d").stateClass()).isEqualTo(l.nodeUsage("e").stateClass());
    l.commit(share("p5", "d", "d-g0", 100, 10), 1000, 0);
    l.commit(share("p6", "e", "e-g0", 100, 10), 2000, 0);
    assertThat(l.nodeUsage("d").stateClass()).isNotEqualTo(l.nodeUsage("e").stateClass());
  }

  @Test
  void healthCounts() {
    Ledger l = new Ledger();
    l.putNode(node("a", H100, H100));
    l.putNode(node("b", H100, H100));
    Gpu g = l.nodeUsage("b").gpu(1);
    l.putNode(
        GpuNode.of(
            "b",
            List.of(
                l.nodeUsage("b").gpu(0),
                new Gpu(g.uuid(), 1, g.model(), g.memoryMib(), 1000, false, null, null))));
    assertThat(l.nodeUsage("a").stateClass()).isNotEqualTo(l.nodeUsage("b").stateClass());
  }

  @Test
  void copiesKeepTheirOwnNumbersAndTheTableStaysBounded() {
    Ledger l = new Ledger();
    l.putNode(node("a", H100, H100));
    l.putNode(node("b", H100, H100));
    Ledger copy = l.copy();
    assertThat(copy.nodeUsage("a").stateClass()).isEqualTo(copy.nodeUsage("b").stateClass());
    // many distinct states over time: the numbers stay small
    for (int i = 0; i < 500; i++) {
      l.commit(share("p" + i, "a", "a-g0", 1, 1));
      l.nodeUsage("a").stateClass();
      l.nodeUsage("b").stateClass();
    }
    assertThat(l.nodeUsage("a").stateClass()).isLessThan(2 * 2 + 64 + 2);
    assertThat(l.nodeUsage("b").stateClass()).isNotEqualTo(l.nodeUsage("a").stateClass());
    assertThat(copy.nodeUsage("a").stateClass()).isEqualTo(copy.nodeUsage("b").stateClass());
  }
}
