package io.sharegpu.extender;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration under {@code sharegpu.extender}.
 *
 * @param policy placement policy name, one of {@code PolicyRegistry.PRODUCT} ({@code sharegpu},
 *     {@code binpack}, {@code spread}); default sharegpu; any other name stops start-up
 * @param reservationTtl how long a filter/prioritize reservation holds GPUs without a bind
 * @param bindLease Lease for bind leader election; empty name = every replica binds
 * @param advertiseUrl this replica's base URL, published as the Lease holder for forwarding: the
 *     verb port ({@code https://} when {@code server.ssl} is set)
 * @param managementPort port of {@code /debug}, {@code /ui} and {@code /actuator} (plain HTTP,
 *     default 8081; 0 = a free one); the verbs stay on {@code server.port}
 * @param warmupCycles filter + prioritize calls run over a private made-up cluster before the
 *     extender reports ready, so that kube-scheduler's first pods meet compiled code (default 3000,
 *     about 3 s of one core; 0 = none)
 */
@ConfigurationProperties(prefix = "sharegpu.extender")
public record ExtenderProperties(
    String policy,
    Duration reservationTtl,
    BindLease bindLease,
    String advertiseUrl,
    Integer managementPort,
    Integer warmupCycles) {

  /** The management port when none is configured. */
  public static final int DEFAULT_MANAGEMENT_PORT = 8081;

  /** Warm-up cycles when none are configured. */
  public static final int DEFAULT_WARMUP_CYCLES = 3000;

  /** Defaults for every key left out. */
  public ExtenderProperties {
    if (policy == null || policy.isBlank()) {
      policy = "sharegpu";
    }
    if (reservationTtl == null) {
      reservationTtl = Duration.ofSeconds(30);
    }
    if (bindLease == null) {
      bindLease = new BindLease("", "", null, null, null);
    }
    if (advertiseUrl == null) {
      advertiseUrl = "";
    }
    if (managementPort == null) {
      managementPort = DEFAULT_MANAGEMENT_PORT;
    }
    if (managementPort < 0 || managementPort > 65535) {
      throw new IllegalArgumentException(
          "sharegpu.extender.management-port must be 0..65535, not " + managementPort);
    }
    if (warmupCycles == null) {
      warmupCycles = DEFAULT_WARMUP_CYCLES;
    }
    if (warmupCycles < 0) {
      throw new IllegalArgumentException(
          "sharegpu.extender.warmup-cycles must be 0 or more, not " + warmupCycles);
    }
  }

  /**
   * The Lease used for bind leader election.
   *
   * @param name Lease name; empty disables leader election
   * @param namespace Lease namespace; empty = the client's namespace
   * @param duration how long a Lease holds without renewal (default 15s)
   * @param renewDeadline how long the leader keeps trying to renew before it stops binding (10s)
   * @param retryPeriod how often candidates try to acquire and the leader renews (2s)
   */
  public record BindLease(
      String name,
      String namespace,
      Duration duration,
      Duration renewDeadline,
      Duration retryPeriod) {
    /** Defaults. */
    public BindLease {
      name = name == null ? "" : name;
      namespace = namespace == null ? "" : namespace;
      duration = duration == null ? Duration.ofSeconds(15) : duration;
      renewDeadline = renewDeadline == null ? Duration.ofSeconds(10) : renewDeadline;
      retryPeriod = retryPeriod == null ? Duration.ofSeconds(2) : retryPeriod;
    }
  }
}
