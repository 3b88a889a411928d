package io.sharegpu.controller;

import io.sharegpu.controller.reconcile.SharePodController;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Reports UP once every informer has synced (part of the readiness group): before that the
 * controller would decide on a partial view of the cluster.
 */
@Component("sharePodControllerHealthIndicator")
class ControllerHealthIndicator implements HealthIndicator {

  private final SharePodController controller;

  ControllerHealthIndicator(SharePodController controller) {
    this.controller = controller;
  }

  @Override
  public Health health() {
    return controller.isReady()
        ? Health.up().build()
        : Health.outOfService().withDetail("reason", "informers have not synced").build();
  }
}
