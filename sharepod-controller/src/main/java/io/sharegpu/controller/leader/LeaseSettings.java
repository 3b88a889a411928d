package io.sharegpu.controller.leader;

import java.time.Duration;

/**
 * Where the Lease lives and its timing. Invariant, as in client-go: retry period < renew deadline <
 * lease duration. The gap between renew deadline and lease duration is what keeps an old leader's
 * last write from racing the new leader's first: the old one stops writing after {@code
 * renewDeadline} without a renewal, the others may take the Lease only after {@code leaseDuration}.
 *
 * @param namespace namespace of the Lease
 * @param name name of the Lease
 * @param identity this replica's holder identity, unique per process
 * @param leaseDuration how long a Lease that is not renewed blocks the others
 * @param renewDeadline how long the leader tries to renew before it gives up
 * @param retryPeriod how often the Lease is renewed and followers try to take it
 */
public record LeaseSettings(
    String namespace,
    String name,
    String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {

  public LeaseSettings {
    if (namespace.isBlank() || name.isBlank() || identity.isBlank()) {
      throw new IllegalArgumentException(
          "leader election needs a Lease namespace, name and identity, got '"
              + namespace
              + "', '"
              + name
              + "', '"
              + identity
              + "'");
    }
    if (retryPeriod.isNegative()
        || retryPeriod.isZero()
        || retryPeriod.compareTo(renewDeadline) >= 0
        || renewDeadline.compareTo(leaseDuration) >= 0) {
      throw new IllegalArgumentException(
          "leader election needs 0 < retry-period < renew-deadline < lease-duration, got "
              + retryPeriod
              + ", "
              + renewDeadline
              + ", "
              + leaseDuration);
    }
  }

  /** Returns {@code namespace/name}. */
  public String lease() {
    return namespace + "/" + name;
  }
}
