package io.sharegpu.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.controller.leader.ControllerLeadership;
import io.sharegpu.controller.leader.LeaseSettings;
import io.sharegpu.controller.model.PodSettings;
import io.sharegpu.controller.reconcile.SharePodController;
import io.sharegpu.controller.reconcile.WriteGuard;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the Kubernetes client (fabric8 defaults: kubeconfig or in-cluster), the leader election and
 * the controller. With leader election every replica runs its informers; only the leader runs the
 * workers; a replica that loses the Lease stops reconciling and exits with status 1, so that
 * Kubernetes restarts it as a follower (simpler and safer than resuming with state from a term it
 * no longer owns).
 */
@Configuration(proxyBeanMethods = false)
class ControllerConfiguration {

  private static final Logger log = LoggerFactory.getLogger(ControllerConfiguration.class);

  /** Exit status of a replica that lost the Lease. */
  static final int LOST_LEADERSHIP_EXIT = 1;

  @Bean(destroyMethod = "close")
  KubernetesClient kubernetesClient() {
    return new KubernetesClientBuilder().build();
  }

  @Bean
  Election controllerLeadership(
      KubernetesClient client, ControllerProperties properties, MeterRegistry meters) {
    ControllerProperties.LeaderElection election = properties.leaderElection();
    if (!election.enabled()) {
      Gauge.builder("sharegpu.controller.leader", () -> 1)
          .description("1 while this replica holds the controller's Lease and reconciles, else 0")
          .register(meters);
      return new Election(null, new AtomicReference<>());
    }
    LeaseSettings settings =
        new LeaseSettings(
            leaseNamespace(election.namespace(), client),
            election.leaseName(),
            election.identity().isBlank() ? defaultIdentity() : election.identity().trim(),
            election.leaseDuration(),
            election.renewDeadline(),
            election.retryPeriod());
    AtomicReference<SharePodController> controller = new AtomicReference<>();
    ControllerLeadership leadership =
        new ControllerLeadership(
            client,
            settings,
            meters,
            new ControllerLeadership.Listener() {
              @Override
              public void startedLeading() {
                SharePodController c = controller.get();
                if (c != null) {
                  c.startWorkers();
                }
              }

              @Override
              public void lostLeadership() {
                SharePodController c = controller.get();
                if (c != null) {
                  c.stopWorkers();
                }
                log.warn(
                    "exiting with status {} after losing the Lease; Kubernetes restarts this"
                        + " replica as a follower",
                    LOST_LEADERSHIP_EXIT);
                Thread exit =
                    new Thread(() -> System.exit(LOST_LEADERSHIP_EXIT), "lost-leadership-exit");
                exit.start();
              }
            });
    return new Election(leadership, controller);
  }

  @Bean
  SharePodController sharePodController(
      KubernetesClient client,
      ControllerProperties properties,
      MeterRegistry meters,
      Election election) {
    WriteGuard guard = election.leadership() == null ? WriteGuard.ALWAYS : election.leadership();
    SharePodController controller =
        new SharePodController(
            client,
            new PodSettings(properties.schedulerName(), properties.mpsPipeDirectory()),
            properties.namespaces(),
            properties.workers(),
            properties.resyncPeriod(),
            Clock.systemUTC(),
            meters,
            guard);
    election.controller().set(controller);
    return controller;
  }

  /**
   * Starts the controller with the application context and stops it before the client closes.
   * Stopping stops the workers first, then releases the Lease (a follower takes over within a retry
   * period).
   */
  @Bean
  SmartLifecycle sharePodControllerLifecycle(SharePodController controller, Election election) {
    return new SmartLifecycle() {
      @Override
      public void start() {
        ControllerLeadership leadership = election.leadership();
        if (leadership == null) {
          controller.start();
        } else {
          controller.startInformers();
          leadership.start();
        }
      }

      @Override
      public void stop() {
        controller.stop();
        ControllerLeadership leadership = election.leadership();
        if (leadership != null) {
          leadership.close();
        }
      }

      @Override
      public boolean isRunning() {
        return controller.isRunning();
      }
    };
  }

  private static String leaseNamespace(String configured, KubernetesClient client) {
    if (!configured.isBlank()) {
      return configured.trim();
    }
    return Optional.ofNullable(client.getNamespace()).filter(s -> !s.isBlank()).orElse("default");
  }

  /** {@code <HOSTNAME>_<8 random hex>}: the pod name, unique even for two processes on one host. */
  private static String defaultIdentity() {
    String host = System.getenv("HOSTNAME");
    String prefix = host == null || host.isBlank() ? "sharepod-controller" : host;
    return prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * The election, absent when disabled, and the controller it starts and stops (set once the
   * controller bean exists; the two refer to each other).
   */
  record Election(
      @Nullable ControllerLeadership leadership, AtomicReference<SharePodController> controller) {}
}
