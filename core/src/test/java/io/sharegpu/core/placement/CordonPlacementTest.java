package io.sharegpu.core.placement;

import static io.sharegpu.core.Fixtures.H100;
import static io.sharegpu.core.Fixtures.H100_MIB;
import static io.sharegpu.core.Fixtures.share;
import static io.sharegpu.core.Fixtures.whole;
import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.ledger.NodeUsage;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.policy.ShareGpuPolicy;
import io.sharegpu.core.preemption.ShortfallClassifier;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A cordoned GPU takes no new pod; the pods on it stay and count; the words name the reason. */
class CordonPlacementTest {
  private static final String XID = "Xid 79, card to be replaced";

  private static String uuid(String node, int i) {
    return "GPU-e4aea6a9-1b46-" + node + "-000" + i;
  }

  /** A node of {@code count} H100s; {@code reasons[i]} non-null cordons GPU i with that reason. */
  private static GpuNode node(String name, int count, @Nullable String... reasons) {
    List<Gpu> gpus = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Gpu g = Gpu.whole(uuid(name, i), i, H100, H100_MIB);
      gpus.add(i < reasons.length ? g.withCordon(reasons[i]) : g);
    }
    return GpuNode.of(name, gpus);
  }

  private static PodDemand sharePod(int milli) {
    return PodDemand.share("ns/p", "uid-p", milli, 0);
  }

  static Stream<Arguments> policies() {
    return Stream.of(
        Arguments.of("binpack", new BinPackPolicy()),
        Arguments.of("spread", new SpreadPolicy()),
        Arguments.of("sharegpu (by node state)", new ShareGpuPolicy()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void shareNeverLandsOnACordonedGpu(String name, PlacementPolicy policy) {
    Ledger l = new Ledger();
    // binpack would pick the busier GPU 0 and spread the idle GPU 1 were nothing cordoned
    l.putNode(node("n1", 3, XID, null, ""));
    l.commit(share("x", "n1", uuid("n1", 0), 500, 1000));
    Placement p = new Placement(l, policy);

    assertThat(p.filter(sharePod(250), List.of("n1")).feasible()).containsExactly("n1");
    assertThat(p.choose(sharePod(250), "n1").orElseThrow().uuids()).containsExactly(uuid("n1", 1));
    assertThat(p.place(sharePod(250)).orElseThrow().uuids()).containsExactly(uuid("n1", 1));
  }

  @Test
  void wholeGpuRequestsSkipCordonedGpus() {
    Ledger l = new Ledger();
    l.putNode(node("n1", 3, null, XID, null));
    Placement p = new Placement(l, new BinPackPolicy());
    PodDemand two = PodDemand.of("ns/p", "uid-p", GpuDemand.whole("main", 2, 0));

    assertThat(p.choose(two, "n1").orElseThrow().uuids())
        .containsExactlyInAnyOrder(uuid("n1", 0), uuid("n1", 2));
    PodDemand three = PodDemand.of("ns/p", "uid-p", GpuDemand.whole("main", 3, 0));
    assertThat(p.choose(three, "n1")).isEmpty();
    assertThat(p.filter(three, List.of("n1")).rejected().get("n1").reason())
        .isEqualTo(
            "needs 3 idle GPUs, found 2 (GPU "
                + uuid("n1", 1).substring(0, 16)
                + "… is cordoned: "
                + XID
                + ")");
  }

  @Test
  void podsOnACordonedGpuStayAndKeepCounting() {
    Ledger l = new Ledger();
    l.putNode(node("n1", 2));
    l.commit(share("x", "n1", uuid("n1", 0), 600, 40_000));
    long version = l.version();

    l.putNode(node("n1", 2, XID));

    assertThat(l.version()).isGreaterThan(version);
    NodeUsage u = l.nodeUsage("n1");
    assertThat(u.isCordoned(0)).isTrue();
    assertThat(u.isCordoned(1)).isFalse();
    assertThat(u.usedMilli(0)).isEqualTo(600);
    assertThat(u.usedMemoryMib(0)).isEqualTo(40_000);
    assertThat(u.holders(0)).containsExactly("ns/x");
    assertThat(l.allocation("x")).isPresent();
    assertThat(l.allocationCount("n1")).isEqualTo(1);
    // uncordoned again: the held share is still there, the rest is open
    l.putNode(node("n1", 2));
    Placement p = new Placement(l, new BinPackPolicy());
    assertThat(p.choose(sharePod(400), "n1").orElseThrow().uuids()).containsExactly(uuid("n1", 0));
  }

  @Test
  void allGpusCordonedSaysSoWithTheOperatorsReasonAndNoEvictionHelps() {
    Ledger l = new Ledger();
    l.putNode(node("n1", 2, XID, ""));
    Placement p = new Placement(l, new BinPackPolicy());

    String reason = p.filter(sharePod(250), List.of("n1")).rejected().get("n1").reason();

    assertThat(reason)
        .isEqualTo(
            "no GPU the pod may use: GPU "
                + uuid("n1", 0).substring(0, 16)
                + "… is cordoned: "
                + XID
                + "; GPU "
                + uuid("n1", 1).substring(0, 16)
                + "… is cordoned");
    assertThat(new ShortfallClassifier(l).classify(sharePod(250), "n1").preemptionCouldHelp())
        .isFalse();
    assertThat(new ShortfallClassifier(l).classify(sharePod(250), "n1").reason())
        .contains("is cordoned: " + XID);
  }

  @Test
  void otherGpuFullAndCordonedGpuFreeIsResolvableAndNamesTheCordon() {
    Ledger l = new Ledger();
    l.putNode(node("n1", 2, XID));
    l.commit(share("y", "n1", uuid("n1", 1), 900, 1000));
    Placement p = new Placement(l, new BinPackPolicy());

    String reason = p.filter(sharePod(250), List.of("n1")).rejected().get("n1").reason();

    assertThat(reason)
        .startsWith("no GPU has 250m compute and its share of memory free (GPU ")
        .endsWith("is cordoned: " + XID + ")");
    // evicting y frees GPU 1, which is not cordoned
    assertThat(new ShortfallClassifier(l).classify(sharePod(250), "n1").preemptionCouldHelp())
        .isTrue();
  }

  @Test
  void nodesInTheSameStateNameTheirOwnCordonedGpus() {
    Ledger l = new Ledger();
    l.putNode(node("a", 1, "fan failed"));
    l.putNode(node("b", 1, "Xid 48"));
    assertThat(l.nodeUsage("a").stateClass()).isEqualTo(l.nodeUsage("b").stateClass());
    Placement p = new Placement(l, new ShareGpuPolicy());

    Map<String, Rejection> rejected = p.filter(sharePod(250), List.of("a", "b")).rejected();

    assertThat(rejected.get("a").reason())
        .contains(uuid("a", 0).substring(0, 16))
        .endsWith("fan failed");
    assertThat(rejected.get("b").reason())
        .contains(uuid("b", 0).substring(0, 16))
        .endsWith("Xid 48");
  }

  @Test
  void explainNamesTheCordonPerGpu() {
    Ledger l = new Ledger();
    l.putNode(node("n1", 2, XID));
    l.commit(share("y", "n1", uuid("n1", 1), 900, 1000));
    Placement p = new Placement(l, new BinPackPolicy());

    Rejection r = p.explain(sharePod(250), "n1");

    assertThat(r.gpuReasons().get(0)).endsWith(": cordoned: " + XID);
    assertThat(r.gpuReasons().get(1)).contains("100m of 1000m compute");
  }

  @Test
  void cordonedGpusAreNotSupply() {
    Ledger l = new Ledger();
    l.putNode(node("n1", 2, XID));
    assertThat(Placement.supply(l)).containsEntry(H100, 1000L);
  }

  @Test
  void wholeGpuHolderOnCordonedGpuStaysAndOthersStillFit() {
    Ledger l = new Ledger();
    l.putNode(node("n1", 2, XID));
    l.commit(whole("w", "n1", H100_MIB, uuid("n1", 0)));
    Placement p = new Placement(l, new BinPackPolicy());
    assertThat(l.nodeUsage("n1").isExclusive(0)).isTrue();
    assertThat(p.choose(sharePod(1000 - 1), "n1").orElseThrow().uuids())
        .containsExactly(uuid("n1", 1));
  }
}
