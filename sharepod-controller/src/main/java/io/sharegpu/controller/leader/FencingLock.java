package io.sharegpu.controller.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * fabric8's Lease lock that also tells the {@link LeaseFence} when this replica's hold on the Lease
 * was written: a create or update naming this replica as holder renews the fence with the time the
 * write started; any other update (the release) closes it first.
 */
final class FencingLock implements Lock {

  private final Lock delegate;
  private final LeaseFence fence;
  private final LongSupplier nanos;

  FencingLock(Lock delegate, LeaseFence fence, LongSupplier nanos) {
    this.delegate = delegate;
    this.fence = fence;
    this.nanos = nanos;
  }

  @Override
  public LeaderElectionRecord get(KubernetesClient client) {
    return delegate.get(client);
  }

  @Override
  public void create(KubernetesClient client, LeaderElectionRecord record) {
    long start = nanos.getAsLong();
    delegate.create(client, record);
    written(record, start);
  }

  @Override
  public void update(KubernetesClient client, LeaderElectionRecord record) {
    if (!ours(record)) {
      fence.lost();
    }
    long start = nanos.getAsLong();
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

  private void written(LeaderElectionRecord record, long start) {
    if (ours(record)) {
      fence.renewed(start);
    }
  }

  private boolean ours(LeaderElectionRecord record) {
    return Objects.equals(record.getHolderIdentity(), delegate.identity());
  }
}
