package io.sharegpu.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.sharegpu.controller.model.PodSettings;
import io.sharegpu.controller.reconcile.SharePodController;
import java.time.Clock;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the Kubernetes client (fabric8 defaults: kubeconfig or in-cluster) and the controller. */
@Configuration(proxyBeanMethods = false)
class ControllerConfiguration {

  @Bean(destroyMethod = "close")
  KubernetesClient kubernetesClient() {
    return new KubernetesClientBuilder().build();
  }

  @Bean
  SharePodController sharePodController(
      KubernetesClient client, ControllerProperties properties, MeterRegistry meters) {
    return new SharePodController(
        client,
        new PodSettings(properties.schedulerName(), properties.mpsPipeDirectory()),
        properties.namespaces(),
        properties.workers(),
        properties.resyncPeriod(),
        Clock.systemUTC(),
        meters);
  }

  /** Starts the controller with the application context and stops it before the client closes. */
  @Bean
  SmartLifecycle sharePodControllerLifecycle(SharePodController controller) {
    return new SmartLifecycle() {
      @Override
      public void start() {
        controller.start();
      }

      @Override
      public void stop() {
        controller.stop();
      }

      @Override
      public boolean isRunning() {
        return controller.isRunning();
      }
    };
  }
}
