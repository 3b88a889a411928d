package io.sharegpu.controller.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * fabric8's Lease lock that also tells the {@link LeaseFence} when this replica's hold on the Lease
 * was written: a create or update naming this replica as holder renews the fence with the time its
 * round started (the read that precedes the write: fabric8 stamps {@code renewTime} before it, and
 * the others count the lease duration from {@code renewTime}); any other update (the release)
 * closes the fence first.
 */
final class FencingLock implements Lock {

  /** A read older than this did not start the current round. */
  private static final long MAX_ROUND_NANOS = 1_000_000_000L;

  private final Lock delegate;
  private final LeaseFence fence;
  private final LongSupplier nanos;
  private volatile long roundStart;

  FencingLock(Lock delegate, LeaseFence fence, LongSupplier nanos) {
    this.delegate = delegate;
    this.fence = fence;
    this.nanos = nanos;
  }

  @Override
  public LeaderElectionRecord get(KubernetesClient client) {
    roundStart = nanos.getAsLong();
    return delegate.get(client);
  }

  @Override
  public void create(KubernetesClient client, LeaderElectionRecord record) {
    long start = start();
    delegate.create(client, record);
    written(record, start);
  }

  @Override
  public void update(KubernetesClient client, LeaderElectionRecord record) {
    if (!ours(record)) {
      fence.lost();
    }
    long start = start();
    delegate.update(client, record);
    written(record, start);
  }

  @Override
  public String identity() {
    return delegate.identity();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  /** The start of this round: its read, unless that was long ago (a write without a read). */
  private long start() {
    long now = nanos.getAsLong();
    long read = roundStart;
    return now - read >= 0 && now - read < MAX_ROUND_NANOS ? read : now;
  }

  private void written(LeaderElectionRecord record, long start) {
    if (ours(record)) {
      fence.renewed(start);
    }
  }

  private boolean ours(LeaderElectionRecord record) {
    return Objects.equals(record.getHolderIdentity(), delegate.identity());
  }
}
