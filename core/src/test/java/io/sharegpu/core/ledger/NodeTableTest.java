package io.sharegpu.core.ledger;

import static io.sharegpu.core.Fixtures.h100Node;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NodeTableTest {

  @Test
  void findsWhatWasPutAndNotWhatWasRemovedThroughGrowthAndCollisions() {
    SplittableRandom r = new SplittableRandom(3);
    NodeTable table = new NodeTable(4);
    Map<String, NodeUsage> expected = new HashMap<>();
    StateClasses classes = new StateClasses();
    // "Aa" and "BB" have the same hash: names built from them collide
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      StringBuilder sb = new StringBuilder();
      for (int b = 0; b < 4; b++) {
        sb.append(r.nextBoolean() ? "Aa" : "BB");
      }
      names.add(sb.append(i % 40).toString());
    }
    for (int step = 0; step < 5000; step++) {
      String name = names.get(r.nextInt(names.size()));
      if (r.nextInt(3) == 0) {
        table.remove(name);
        expected.remove(name);
      } else {
        NodeUsage u = new NodeUsage(h100Node(name, 1), classes);
        table.put(name, u);
        expected.put(name, u);
      }
      if (step % 97 == 0) {
        for (String n : names) {
          int slot = table.find(new String(n.toCharArray()));
          if (expected.containsKey(n)) {
            assertThat(slot).as(n).isNotNegative();
            assertThat(table.usage(slot)).isSameAs(expected.get(n));
          } else {
            assertThat(slot).as(n).isEqualTo(-1);
          }
        }
      }
    }
  }

  @Test
  void ledgerLooksUpBySlotAndForgetsClassesOfChangedNodes() {
    Ledger l = new Ledger();
    l.putNode(h100Node("a", 2));
    l.putNode(h100Node("b", 2));
    int a = l.nodeSlot("a");
    assertThat(l.nodeSlot("zz")).isEqualTo(-1);
    assertThat(l.nodeUsage(a).node().name()).isEqualTo("a");
    assertThat(l.stateClass(a)).isEqualTo(l.stateClass(l.nodeSlot("b")));
    l.commit(
        io.sharegpu.core.Fixtures.share("p", "a", io.sharegpu.core.Fixtures.uuid("a", 0), 10, 10));
    assertThat(l.stateClass(l.nodeSlot("a"))).isNotEqualTo(l.stateClass(l.nodeSlot("b")));
    l.release("p");
    assertThat(l.stateClass(l.nodeSlot("a"))).isEqualTo(l.stateClass(l.nodeSlot("b")));
    l.removeNode("a");
    assertThat(l.nodeSlot("a")).isEqualTo(-1);
    assertThat(l.nodeUsage("b")).isNotNull();
    Ledger copy = l.copy();
    assertThat(copy.nodeUsage(copy.nodeSlot("b"))).isNotSameAs(l.nodeUsage("b"));
  }
}
