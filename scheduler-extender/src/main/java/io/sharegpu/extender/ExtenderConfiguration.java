package io.sharegpu.extender;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.core.placement.PlacementPolicy;
import io.sharegpu.core.policy.PolicyRegistry;
import io.sharegpu.extender.bind.BindForwarder;
import io.sharegpu.extender.bind.BindLeadership;
import io.sharegpu.extender.bind.BindRouter;
import io.sharegpu.extender.bind.PeerTls;
import io.sharegpu.extender.bind.PodBinder;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.events.PodEvents;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.preempt.DisruptionBudgets;
import io.sharegpu.extender.preempt.Preemption;
import io.sharegpu.extender.requeue.WaitingPods;
import io.sharegpu.extender.scheduling.ReservationExpiry;
import io.sharegpu.extender.scheduling.SchedulingState;
import io.sharegpu.extender.status.AllocationSummaryPublisher;
import io.sharegpu.extender.warmup.VerbWarmup;
import io.sharegpu.extender.web.ExtenderHandler;
import io.sharegpu.extender.web.WireCodec;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** Wires the extender: client, policy, cluster view, binder, protocol handler. */
@Configuration(proxyBeanMethods = false)
public class ExtenderConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderConfiguration.class);

  /** The fabric8 client from the default configuration (KUBECONFIG, ~/.kube/config, in-cluster). */
  @Bean(destroyMethod = "close")
  KubernetesClient kubernetesClient() {
    return new KubernetesClientBuilder()
        .withConfig(withoutTokenRefresh(Config.autoConfigure(null)))
        .build();
  }

  /**
   * Turns off fabric8's token refresh when the configuration authenticates with a client
   * certificate only. With no token to refresh, fabric8's {@code TokenRefreshInterceptor} finds it
   * "time to refresh" on every request once the first minute has passed and re-reads and re-parses
   * the whole kubeconfig (YAML with the embedded certificates) each time: a profile of the
   * throughput benchmark showed it as the largest single cost of a bind. A token provider that
   * gives no token makes the interceptor skip that; certificates are not reloaded by a refresh
   * anyway. Token-based configurations (in-cluster service accounts, exec plugins, OIDC) are left
   * as they are, since their tokens rotate.
   */
  static Config withoutTokenRefresh(Config config) {
    boolean noToken =
        isBlank(config.getOauthToken())
            && isBlank(config.getAutoOAuthToken())
            && config.getOauthTokenProvider() == null
            && config.getAuthProvider() == null
            && isBlank(config.getUsername());
    boolean clientCertificate =
        !isBlank(config.getClientCertData()) || !isBlank(config.getClientCertFile());
    if (noToken && clientCertificate) {
      config.setOauthTokenProvider(() -> null);
    }
    return config;
  }

  private static boolean isBlank(@Nullable String s) {
    return s == null || s.isBlank();
  }

  /** The placement policy named by {@code sharegpu.extender.policy}. */
  @Bean
  PlacementPolicy placementPolicy(ExtenderProperties props) {
    return resolvePolicy(props.policy());
  }

  /**
   * Returns the named policy of {@link PolicyRegistry#PRODUCT}.
   *
   * @throws IllegalArgumentException for any other name, listing the valid ones: start-up stops
   *     rather than run a policy nobody chose
   */
  static PlacementPolicy resolvePolicy(String name) {
    if (!PolicyRegistry.PRODUCT.contains(name)) {
      throw new IllegalArgumentException(
          "sharegpu.extender.policy: " + PolicyRegistry.PRODUCT.unknown(name));
    }
    return PolicyRegistry.PRODUCT.create(name, 1L);
  }

  /** The scheduling state: the ledger, reservations and binds in flight behind one lock. */
  @Bean(destroyMethod = "close")
  SchedulingState schedulingState(PlacementPolicy policy, ExtenderProperties props) {
    return new SchedulingState(policy, props.reservationTtl(), Clock.systemUTC());
  }

  /** Releases the reservations whose TTL passed, a few times per TTL. */
  @Bean(destroyMethod = "close")
  ReservationExpiry reservationExpiry(SchedulingState state, ExtenderProperties props) {
    return ReservationExpiry.start(state, props.reservationTtl(), Clock.systemUTC());
  }

  /**
   * The informer feed, started on a background thread after the verbs' warm-up ({@link
   * VerbWarmup}); readiness waits for both.
   */
  @Bean(destroyMethod = "close")
  ClusterFeed clusterFeed(
      KubernetesClient client, SchedulingState state, WireCodec codec, ExtenderProperties props) {
    ClusterFeed feed = new ClusterFeed(client, state);
    Thread t =
        new Thread(
            () -> {
              state.notReadyBecause("warming up the verbs");
              warmUp(codec, props);
              state.notReadyBecause("building the cluster view");
              while (!state.isReady()) {
                try {
                  feed.start();
                } catch (RuntimeException e) {
                  LOG.error("cannot build the cluster view, retrying in 5s: {}", e.toString());
                  feed.close();
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
    return feed;
  }

  private static void warmUp(WireCodec codec, ExtenderProperties props) {
    try {
      Duration took =
          VerbWarmup.run(codec, () -> resolvePolicy(props.policy()), props.warmupCycles());
      LOG.info(
          "verbs warmed up: {} filter + prioritize calls in {} ms",
          props.warmupCycles(),
          took.toMillis());
    } catch (RuntimeException e) {
      // a warm-up that fails costs speed, never correctness: the real state was not touched
      LOG.warn("the verbs' warm-up failed; serving without it", e);
    }
  }

  @Bean(destroyMethod = "close")
  PodEvents podEvents(KubernetesClient client) {
    return new PodEvents(client);
  }

  /**
   * Bind leadership: with {@code bind-lease.name}, Lease-based election among the replicas (the
   * identity is {@code advertise-url}); without, a single replica that always binds.
   */
  @Bean(destroyMethod = "close")
  BindLeadership bindLeadership(
      KubernetesClient client,
      ClusterFeed feed,
      SchedulingState state,
      ExtenderMetrics metrics,
      ExtenderProperties props) {
    ExtenderProperties.BindLease lease = props.bindLease();
    if (lease.name().isEmpty()) {
      return BindLeadership.single(metrics);
    }
    String namespace = lease.namespace().isEmpty() ? client.getNamespace() : lease.namespace();
    if (namespace == null || namespace.isEmpty()) {
      namespace = "default";
    }
    BindLeadership l =
        BindLeadership.elected(
            client,
            feed,
            state,
            metrics,
            namespace,
            lease.name(),
            props.advertiseUrl(),
            lease.duration(),
            lease.renewDeadline(),
            lease.retryPeriod());
    l.start();
    LOG.info(
        "bind leader election on Lease {}/{} as {}", namespace, lease.name(), props.advertiseUrl());
    return l;
  }

  /**
   * Forwards binds to the leader. When the verb port serves the SSL bundle named by {@code
   * server.ssl.bundle}, the forwarder presents that bundle's certificate and trusts its CA, and
   * follows the bundle when Boot reloads it ({@code reload-on-update}).
   */
  @Bean
  BindForwarder bindForwarder(Environment env, ObjectProvider<SslBundles> bundles) {
    BindForwarder forwarder = new BindForwarder(Duration.ofSeconds(2), Duration.ofSeconds(15));
    String bundleName = env.getProperty("server.ssl.bundle", "");
    boolean sslEnabled = env.getProperty("server.ssl.enabled", Boolean.class, true);
    SslBundles registry = bundles.getIfAvailable();
    if (bundleName.isEmpty() || !sslEnabled || registry == null) {
      return forwarder;
    }
    forwarder.useTls(peerContext(registry.getBundle(bundleName)));
    registry.addBundleUpdateHandler(
        bundleName,
        updated -> {
          forwarder.useTls(peerContext(updated));
          LOG.info("SSL bundle {} reloaded; forwarded binds use the new certificate", bundleName);
        });
    return forwarder;
  }

  private static SSLContext peerContext(SslBundle bundle) {
    try {
      return PeerTls.context(
          bundle.getManagers().getKeyManagers(), bundle.getManagers().getTrustManagers());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build the bind forwarder's TLS context", e);
    }
  }

  @Bean
  PodBinder podBinder(
      KubernetesClient client,
      ClusterFeed feed,
      SchedulingState state,
      PodEvents events,
      ExtenderMetrics metrics,
      BindLeadership leadership) {
    return new PodBinder(client, feed, state, events, metrics, leadership::isLeader);
  }

  /** Binds on this replica; the controller forwards to the leader when this one is not. */
  @Bean
  BindRouter bindRouter(PodBinder binder) {
    return binder::bind;
  }

  /**
   * {@code status.allocation} of each GPUNode (FREE, CORDONED), written by the bind leader: a node
   * at most every 5 s, at most 50 writes a second over the cluster.
   */
  @Bean(destroyMethod = "close")
  AllocationSummaryPublisher allocationSummaryPublisher(
      SchedulingState state,
      ClusterFeed feed,
      KubernetesClient client,
      BindLeadership leadership,
      MeterRegistry registry) {
    AllocationSummaryPublisher p =
        new AllocationSummaryPublisher(
            state,
            feed,
            client,
            leadership::isLeader,
            Duration.ofSeconds(5),
            50,
            registry,
            System::nanoTime);
    p.start();
    return p;
  }

  @Bean(destroyMethod = "close")
  WaitingPods waitingPods(
      SchedulingState state, ClusterFeed feed, KubernetesClient client, MeterRegistry registry) {
    WaitingPods waiting = new WaitingPods(state, feed, client, registry, Clock.systemUTC());
    waiting.start();
    return waiting;
  }

  /** PodDisruptionBudgets for the preempt verb (kube-scheduler prefers not to violate them). */
  @Bean(destroyMethod = "close")
  DisruptionBudgets disruptionBudgets(KubernetesClient client) {
    return DisruptionBudgets.watch(client);
  }

  /** The preempt verb's decision (and the debug explanation's "would preempt"). */
  @Bean
  Preemption preemption(SchedulingState state, ClusterFeed feed, DisruptionBudgets budgets) {
    return new Preemption(state, feed, budgets, Clock.systemUTC());
  }

  @Bean
  ExtenderHandler extenderHandler(
      SchedulingState state,
      BindRouter router,
      PodEvents events,
      ExtenderMetrics metrics,
      WaitingPods waiting,
      Preemption preemption) {
    return new ExtenderHandler(state, router, events, metrics, waiting, preemption);
  }

  @Bean
  WireCodec wireCodec() {
    return new WireCodec();
  }

  /** Readiness: up once the ledger was rebuilt from the cluster. */
  @Bean("clusterViewHealthIndicator")
  HealthIndicator clusterViewHealth(SchedulingState state) {
    return () ->
        state.isReady()
            ? Health.up().build()
            : Health.outOfService()
                .withDetail("reason", String.valueOf(state.notReadyReason()))
                .build();
  }
}
