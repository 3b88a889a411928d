package io.sharegpu.extender.bind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.sharegpu.extender.ClusterFixture;
import io.sharegpu.extender.Fixtures;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Two replicas electing a bind leader on one Lease (fabric8's CRUD mock API server). */
@EnableKubernetesMockClient(crud = true)
class BindLeadershipTest {

  static KubernetesMockServer server;
  static KubernetesClient client;

  private BindLeadership replica(ClusterFixture view, String url) {
    return BindLeadership.elected(
        client,
        view.feed(),
        view.state(),
        ExtenderMetrics.inMemory(),
        "ns",
        "bind",
        url,
        Duration.ofSeconds(3),
        Duration.ofSeconds(2),
        Duration.ofMillis(200));
  }

  @Test
  void oneReplicaLeadsTheOtherKnowsItsUrlAndTakesOverWhenItLeaves() {
    ClusterFixture view = Fixtures.view("binpack");
    BindLeadership a = replica(view, "http://a:8080");
    BindLeadership b = replica(view, "http://b:8080");
    try {
      a.start();
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(a::isLeader);
      b.start();
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> b.leaderUrl().orElse("").equals("http://a:8080"));
      assertThat(b.isLeader()).isFalse();
      a.close();
      assertThat(a.isLeader()).isFalse();
      Awaitility.await().atMost(Duration.ofSeconds(15)).until(b::isLeader);
      assertThat(b.leaderUrl()).contains("http://b:8080");
      assertThat(
              client
                  .leases()
                  .inNamespace("ns")
                  .withName("bind")
                  .get()
                  .getSpec()
                  .getHolderIdentity())
          .isEqualTo("http://b:8080");
    } finally {
      a.close();
      b.close();
      view.close();
    }
  }

  @Test
  void electionNeedsAnAdvertiseUrl() {
    assertThatThrownBy(() -> replica(Fixtures.view("binpack"), " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("advertise-url");
  }
}
