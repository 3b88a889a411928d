package io.sharegpu.extender;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.core.placement.PlacementPolicies;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.extender.bind.BindRouter;
import io.sharegpu.extender.bind.PodBinder;
import io.sharegpu.extender.cluster.ClusterView;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.web.ExtenderHandler;
import io.sharegpu.extender.web.WireCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the extender: client, policy, cluster view, binder, protocol handler. */
@Configuration(proxyBeanMethods = false)
public class ExtenderConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderConfiguration.class);

  /** The fabric8 client from the default configuration (KUBECONFIG, ~/.kube/config, in-cluster). */
  @Bean(destroyMethod = "close")
  KubernetesClient kubernetesClient() {
    return new KubernetesClientBuilder().build();
  }

  /** The placement policy named by {@code sharegpu.extender.policy}. */
  @Bean
  PlacementPolicy placementPolicy(ExtenderProperties props) {
    return resolvePolicy(props.policy());
  }

  /**
   * Returns the named policy; an unknown name is logged as an error naming the known ones and falls
   * back to {@code sharegpu}, or {@code binpack} when that is not available.
   */
  static PlacementPolicy resolvePolicy(String name) {
    try {
      return PlacementPolicies.byName(name, 1L);
    } catch (IllegalArgumentException e) {
      String fallback = PlacementPolicies.names().contains("sharegpu") ? "sharegpu" : "binpack";
      LOG.error(
          "sharegpu.extender.policy={} is not a placement policy ({}); using {}",
          name,
          e.getMessage(),
          fallback);
      return PlacementPolicies.byName(fallback, 1L);
    }
  }

  /** The cluster view, started on a background thread; readiness waits for it. */
  @Bean(destroyMethod = "close")
  ClusterView clusterView(
      KubernetesClient client, PlacementPolicy policy, ExtenderProperties props) {
    ClusterView view = new ClusterView(client, policy, props.reservationTtl());
    Thread t =
        new Thread(
            () -> {
              while (!view.isReady()) {
                try {
                  view.start();
                } catch (RuntimeException e) {
                  LOG.error("cannot build the cluster view, retrying in 5s: {}", e.toString());
                  view.close();
                  try {
                    Thread.sleep(5000);
                  } catch (InterruptedException ie) {
                    return;
                  }
                }
              }
            },
            "cluster-view-start");
    t.setDaemon(true);
    t.start();
    return view;
  }

  @Bean(destroyMethod = "close")
  PodEvents podEvents(KubernetesClient client) {
    return new PodEvents(client);
  }

  @Bean
  ExtenderMetrics extenderMetrics(MeterRegistry registry) {
    return new ExtenderMetrics(registry);
  }

  @Bean
  PodBinder podBinder(
      KubernetesClient client, ClusterView view, PodEvents events, ExtenderMetrics metrics) {
    return new PodBinder(client, view, events, metrics);
  }

  /** Binds on this replica. Bind leader election (bind-lease) is not implemented yet. */
  @Bean
  BindRouter bindRouter(PodBinder binder, ExtenderProperties props) {
    if (!props.bindLease().name().isEmpty()) {
      LOG.warn(
          "sharegpu.extender.bind-lease.name={} is set, but bind leader election is not"
              + " implemented in this version: every replica binds. Run a single replica.",
          props.bindLease().name());
    }
    return binder::bind;
  }

  @Bean
  ExtenderHandler extenderHandler(
      ClusterView view, BindRouter router, PodEvents events, ExtenderMetrics metrics) {
    return new ExtenderHandler(view, router, events, metrics);
  }

  @Bean
  WireCodec wireCodec() {
    return new WireCodec();
  }

  /** Readiness: up once the ledger was rebuilt from the cluster. */
  @Bean("clusterViewHealthIndicator")
  HealthIndicator clusterViewHealth(ClusterView view) {
    return () ->
        view.isReady()
            ? Health.up().build()
            : Health.outOfService()
                .withDetail("reason", String.valueOf(view.notReadyReason()))
                .build();
  }
}
