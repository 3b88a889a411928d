package io.sharegpu.extender.bind;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.extender.cluster.CachedObjects;
import io.sharegpu.extender.cluster.ClusterFeed;
import io.sharegpu.extender.metrics.ExtenderMetrics;
import io.sharegpu.extender.scheduling.SchedulingState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which replica may bind. With a Lease name, replicas elect a bind leader through fabric8's
 * Lease-based {@code LeaderElector}; the holder identity is the replica's advertise URL, so a
 * follower knows where to forward {@code /bind}. A new leader binds only once its pod informer has
 * caught up with a fresh list of the assigned pods (nothing the previous leader bound is missing
 * from its ledger). Without a Lease name there is one replica and it always binds.
 */
public final class BindLeadership implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BindLeadership.class);
  private static final long LIST_PAGE = 500;

  private final @Nullable KubernetesClient client;
  private final @Nullable ClusterFeed feed;
  private final @Nullable SchedulingState state;
  private final ExtenderMetrics metrics;
  private final String namespace;
  private final String name;
  private final String identity;
  private final Duration leaseDuration;
  private final Duration renewDeadline;
  private final Duration retryPeriod;
  private final AtomicLong term = new AtomicLong();
  private volatile boolean leading;
  private volatile boolean caughtUp;
  private volatile boolean closed;
  private volatile @Nullable String leader;
  private volatile @Nullable CompletableFuture<?> election;

  private BindLeadership(
      @Nullable KubernetesClient client,
      @Nullable ClusterFeed feed,
      @Nullable SchedulingState state,
      ExtenderMetrics metrics,
      String namespace,
      String name,
      String identity,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod) {
    this.client = client;
    this.feed = feed;
    this.state = state;
    this.metrics = metrics;
    this.namespace = namespace;
    this.name = name;
    this.identity = identity;
    this.leaseDuration = leaseDuration;
    this.renewDeadline = renewDeadline;
    this.retryPeriod = retryPeriod;
  }

  /** One replica, no election: always the leader. */
  public static BindLeadership single(ExtenderMetrics metrics) {
    BindLeadership l =
        new BindLeadership(
            null, null, null, metrics, "", "", "", Duration.ZERO, Duration.ZERO, Duration.ZERO);
    l.leading = true;
    l.caughtUp = true;
    metrics.leader(true);
    return l;
  }

  /**
   * A replica with a fixed state and no election (tests and tools): the leader, or a follower of
   * {@code leaderUrl} (null: no leader known).
   */
  public static BindLeadership fixed(
      boolean leader, String identity, @Nullable String leaderUrl, ExtenderMetrics metrics) {
    BindLeadership l =
        new BindLeadership(
            null,
            null,
            null,
            metrics,
            "",
            "",
            identity,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ZERO);
    l.leading = leader;
    l.caughtUp = leader;
    l.leader = leader ? identity : leaderUrl;
    metrics.leader(leader);
    return l;
  }

  /**
   * Lease-based election; call {@link #start()} to take part.
   *
   * @param identity this replica's base URL (the Lease's holderIdentity)
   */
  public static BindLeadership elected(
      KubernetesClient client,
      ClusterFeed feed,
      SchedulingState state,
      ExtenderMetrics metrics,
      String namespace,
      String name,
      String identity,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod) {
    if (identity.isBlank()) {
      throw new IllegalArgumentException(
          "sharegpu.extender.advertise-url is required when sharegpu.extender.bind-lease.name is"
              + " set (followers forward binds to the leader's URL)");
    }
    metrics.leader(false);
    return new BindLeadership(
        client,
        feed,
        state,
        metrics,
        namespace,
        name,
        identity,
        leaseDuration,
        renewDeadline,
        retryPeriod);
  }

  /** True when leader election is on. */
  public boolean elected() {
    return client != null;
  }

  /** True while this replica may bind: it holds the Lease and its ledger has caught up. */
  public boolean isLeader() {
    return leading && caughtUp;
  }

  /** This replica's identity (its advertise URL); empty without election. */
  public String identity() {
    return identity;
  }

  /** {@code namespace/name} of the Lease. */
  public String lease() {
    return namespace + "/" + name;
  }

  /** The current leader's URL as last seen in the Lease, if any. */
  public Optional<String> leaderUrl() {
    return Optional.ofNullable(leader).filter(s -> !s.isBlank());
  }

  /** Joins the election (in the background); after losing the Lease it runs for it again. */
  public synchronized void start() {
    if (client == null || closed) {
      return;
    }
    var config =
        new LeaderElectionConfigBuilder()
            .withName("sharegpu-extender-bind")
            .withLock(new LeaseLock(namespace, name, identity))
            .withLeaseDuration(leaseDuration)
            .withRenewDeadline(renewDeadline)
            .withRetryPeriod(retryPeriod)
            .withReleaseOnCancel(true)
            .withLeaderCallbacks(
                new LeaderCallbacks(this::startedLeading, this::stoppedLeading, this::newLeader))
            .build();
    CompletableFuture<?> f = client.leaderElector().withConfig(config).build().start();
    election = f;
    f.whenComplete(
        (v, e) -> {
          stoppedLeading();
          if (!closed) {
            LOG.info("bind leader election for Lease {} ended; running for it again", lease());
            CompletableFuture.runAsync(
                this::start,
                CompletableFuture.delayedExecutor(
                    Math.max(100, retryPeriod.toMillis()), TimeUnit.MILLISECONDS));
          }
        });
  }

  private void startedLeading() {
    long myTerm = term.incrementAndGet();
    leading = true;
    caughtUp = false;
    leader = identity;
    LOG.info("became bind leader (Lease {}, identity {})", lease(), identity);
    Thread t = new Thread(() -> catchUp(myTerm), "bind-leader-catch-up");
    t.setDaemon(true);
    t.start();
  }

  /** Waits until the ledger holds every assignment a fresh list shows, then allows binds. */
  private void catchUp(long myTerm) {
    KubernetesClient c = client;
    ClusterFeed v = feed;
    SchedulingState s = state;
    while (!closed && leading && term.get() == myTerm) {
      try {
        if (v != null && s != null && c != null && s.isReady()) {
          List<Pod> assigned = listAssigned(c);
          if (v.podsSeenAsOf(assigned)) {
            if (leading && term.get() == myTerm) {
              caughtUp = true;
              metrics.leader(true);
              LOG.info("bind leader caught up with {} assigned pods; binding", assigned.size());
            }
            return;
          }
        }
      } catch (RuntimeException e) {
        LOG.warn("bind leader cannot check its ledger yet: {}", e.toString());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Lists the pods carrying assignment annotations, in pages of {@value #LIST_PAGE} (the list is
   * still one consistent snapshot), keeping reduced copies: a cluster's pods as full objects would
   * need gigabytes at once.
   */
  private static List<Pod> listAssigned(KubernetesClient c) {
    List<Pod> assigned = new ArrayList<>();
    String next = null;
    do {
      PodList page =
          c.pods()
              .inAnyNamespace()
              .list(new ListOptionsBuilder().withLimit(LIST_PAGE).withContinue(next).build());
      for (Pod p : page.getItems()) {
        if (assigned(p)) {
          assigned.add(CachedObjects.pod(p));
        }
      }
      next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (next != null && !next.isEmpty());
    return assigned;
  }

  private static boolean assigned(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    return a != null && a.containsKey(ShareGpuAnnotations.ASSIGNED_NODE);
  }

  private void stoppedLeading() {
    if (leading) {
      LOG.warn("lost the bind Lease {}: no longer binding", lease());
    }
    term.incrementAndGet();
    leading = false;
    caughtUp = false;
    metrics.leader(false);
    if (identity.equals(leader)) {
      leader = null;
    }
  }

  private void newLeader(String holder) {
    leader = holder;
    if (!identity.equals(holder)) {
      LOG.info("bind leader is {}", holder);
    }
  }

  /** Leaves the election; the Lease is released when this replica holds it. */
  @Override
  public void close() {
    closed = true;
    CompletableFuture<?> f = election;
    if (f != null) {
      f.cancel(true);
    }
    stoppedLeading();
  }
}
