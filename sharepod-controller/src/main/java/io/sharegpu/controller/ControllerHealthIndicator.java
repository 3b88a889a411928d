package io.sharegpu.controller;

import io.sharegpu.controller.leader.ControllerLeadership;
import io.sharegpu.controller.reconcile.SharePodController;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Reports UP once every informer has synced (part of the readiness group): before that the
 * controller would decide on a partial view of the cluster. A follower is ready too: its caches are
 * warm and it takes over as soon as it holds the Lease; were it not ready, a rolling update would
 * wait forever for a new replica that cannot lead while the old one runs. Details say who leads.
 */
@Component("sharePodControllerHealthIndicator")
class ControllerHealthIndicator implements HealthIndicator {

  private final SharePodController controller;
  private final ControllerConfiguration.Election election;

  ControllerHealthIndicator(
      SharePodController controller, ControllerConfiguration.Election election) {
    this.controller = controller;
    this.election = election;
  }

  @Override
  public Health health() {
    Health.Builder health =
        controller.isReady()
            ? Health.up()
            : Health.outOfService().withDetail("reason", "informers have not synced");
    ControllerLeadership leadership = election.leadership();
    if (leadership != null) {
      health
          .withDetail("leader", leadership.isLeader())
          .withDetail("identity", leadership.identity())
          .withDetail("lease", leadership.lease());
    }
    return health.withDetail("reconciling", controller.isReconciling()).build();
  }
}
