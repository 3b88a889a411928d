package io.sharegpu.extender.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.core.ledger.ContainerGrant;
import io.sharegpu.core.placement.NodeView;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.request.PodDemand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterViewObserveTest {

  /** Records what the view shows it. */
  static final class RecordingPolicy implements PlacementPolicy {
    final List<String> observed = new ArrayList<>();

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public double score(NodeView view, PodDemand pod, List<ContainerGrant> grant) {
      return 0;
    }

    @Override
    public void observe(PodDemand pod) {
      observed.add(pod.podUid());
    }
  }

  @Test
  void eachPodIsShownToThePolicyOnceHoweverOftenItIsFiltered() {
    RecordingPolicy policy = new RecordingPolicy();
    ClusterView view = new ClusterView(null, policy, Duration.ofSeconds(30));

    view.observe(PodDemand.share("ns/a", "uid-a", 250, 0));
    view.observe(PodDemand.share("ns/a", "uid-a", 250, 0));
    view.observe(PodDemand.share("ns/b", "uid-b", 500, 0));

    assertThat(policy.observed).containsExactly("uid-a", "uid-b");
  }
}
