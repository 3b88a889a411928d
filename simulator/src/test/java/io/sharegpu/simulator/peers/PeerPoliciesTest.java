package io.sharegpu.simulator.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.Allocation;
import io.sharegpu.core.ledger.Ledger;
import io.sharegpu.core.model.Gpu;
import io.sharegpu.core.model.GpuNode;
import io.sharegpu.core.placement.Placement;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.GpuDemand;
import io.sharegpu.core.request.PodDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PeerPoliciesTest {

  /** Nodes of {@code gpus} GPUs of 1000 MiB, 32 cores and 128 GiB each. */
  private static Ledger cluster(int nodes, int gpus) {
    Ledger ledger = new Ledger();
    for (int n = 0; n < nodes; n++) {
      List<Gpu> list = new ArrayList<>();
      for (int i = 0; i < gpus; i++) {
        list.add(Gpu.whole("n" + n + "-gpu" + i, i, "T4", 1000));
      }
      ledger.putNode(new GpuNode("n" + n, list, 32_000, 131_072));
    }
    return ledger;
  }

  private static int counter;

  private static PodDemand share(int milli, Set<String> pinned) {
    String name = "p" + counter++;
    return new PodDemand(
        "t/" + name,
        name,
        List.of(GpuDemand.share("main", milli, 0)),
        Set.of(),
        pinned,
        Set.of(),
        1000,
        1024);
  }

  /** Puts a share of {@code milli} on exactly this GPU. */
  private static void hold(Ledger ledger, String uuid, int milli) {
    PodDemand d = share(milli, Set.of(uuid));
    Allocation a = new Placement(ledger, new GpusharePolicy(1)).place(d).orElseThrow();
    ledger.commit(a, d.cpuMilli(), d.memoryMib());
  }

  private static String gpuOf(Ledger ledger, PlacementPolicy policy, int milli) {
    Allocation a = new Placement(ledger, policy).place(share(milli, Set.of())).orElseThrow();
    return a.containers().get(0).gpus().get(0).uuid();
  }

  @Test
  void gpushareGivesAShareTheGpuWithTheLeastFreeMemoryThatFits() {
    Ledger ledger = cluster(1, 3);
    hold(ledger, "n0-gpu0", 300);
    hold(ledger, "n0-gpu1", 600);
    // free 700, 400, 1000: a 300 share takes GPU 1; a 500 share no longer fits there: GPU 0
    assertThat(gpuOf(ledger, new GpusharePolicy(1), 300)).isEqualTo("n0-gpu1");
    assertThat(gpuOf(ledger, new GpusharePolicy(1), 500)).isEqualTo("n0-gpu0");
  }

  @Test
  void gpushareLeavesTheNodeToKubeSchedulersLeastAllocatedScore() {
    Ledger ledger = cluster(2, 2);
    // n0 gets a share (and its host CPU and memory), so the emptier n1 scores higher
    hold(ledger, "n0-gpu0", 100);
    assertThat(gpuOf(ledger, new GpusharePolicy(1), 300)).startsWith("n1-");
  }

  @Test
  void kubeshareTakesThePairWithTheLeastComputeLeftAcrossNodes() {
    Ledger ledger = cluster(2, 2);
    hold(ledger, "n0-gpu0", 400); // free 600
    hold(ledger, "n1-gpu1", 650); // free 350: a 300 share leaves 50 here
    assertThat(gpuOf(ledger, new KubeSharePolicy(1), 300)).isEqualTo("n1-gpu1");
    // a 400 share fits only n0-gpu0 among shared GPUs: it beats every idle GPU
    assertThat(gpuOf(ledger, new KubeSharePolicy(1), 400)).isEqualTo("n0-gpu0");
  }

  @Test
  void hamiPacksNodesAndSpreadsGpusByDefaultAndPacksGpusInItsBinpackVariant() {
    Ledger ledger = cluster(2, 3);
    hold(ledger, "n1-gpu0", 200);
    hold(ledger, "n1-gpu1", 100);
    // node binpack: n1 is the more used node; GPU spread: its idle GPU 2
    assertThat(gpuOf(ledger, new HamiPolicy(false, 1), 100)).isEqualTo("n1-gpu2");
    // GPU binpack: the most used GPU that fits
    assertThat(gpuOf(ledger, new HamiPolicy(true, 1), 100)).isEqualTo("n1-gpu0");
  }

  @Test
  void kubeDefaultScoreFollowsTheWorkedExample() {
    // 96 cores, 384 GiB; 24 cores and 96 GiB requested; the pod asks 8 cores and 32 GiB
    assertThat(KubeDefaultScore.leastRequested(32_000, 96_000)).isEqualTo(66);
    assertThat(KubeDefaultScore.leastRequested(131_072, 393_216)).isEqualTo(66);
    assertThat(KubeDefaultScore.balanced(32_000, 96_000, 131_072, 393_216)).isEqualTo(100);
    // all CPU, no memory requested: fractions 1 and 0, deviation 0.5
    assertThat(KubeDefaultScore.balanced(96_000, 96_000, 0, 393_216)).isEqualTo(50);
    assertThat(KubeDefaultScore.leastRequested(97_000, 96_000)).isZero();
  }

  @Test
  void everyPeerIsRegisteredUnderItsName() {
    assertThat(PeerPolicies.all().keySet())
        .containsExactly("gpushare", "hami", "hami-binpack", "kubeshare");
    PeerPolicies.all().forEach((name, f) -> assertThat(f.apply(1).name()).isEqualTo(name));
  }
}
