package io.sharegpu.controller.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class FencingLockTest {

  private static final long MS = 1_000_000L;

  private final AtomicLong now = new AtomicLong(1_000 * MS);
  private final LeaseFence fence = new LeaseFence(Duration.ofSeconds(10));
  private final FakeLock delegate = new FakeLock();
  private final FencingLock lock = new FencingLock(delegate, fence, now::get);

  @Test
  void aRenewalCountsFromTheReadThatStartedItsRound() {
    lock.get(null);
    now.addAndGet(300 * MS); // a slow read
    lock.update(null, record("me"));

    now.set(1_000 * MS + 9_999 * MS);
    assertThat(fence.mayWrite(now.get())).isTrue();
    now.set(1_000 * MS + 10_000 * MS);
    assertThat(fence.mayWrite(now.get())).isFalse(); // 10 s after the read, not after the write
  }

  @Test
  void aFailedRenewalDoesNotMoveTheFence() {
    lock.get(null);
    lock.create(null, record("me"));
    now.addAndGet(5_000 * MS);
    lock.get(null);
    delegate.fail = true;
    try {
      lock.update(null, record("me"));
    } catch (IllegalStateException expected) {
      // the API server refused the renewal
    }
    assertThat(fence.mayWrite(1_000 * MS + 9_000 * MS)).isTrue();
    assertThat(fence.mayWrite(1_000 * MS + 10_000 * MS)).isFalse();
  }

  @Test
  void releasingClosesTheFenceBeforeTheWrite() {
    lock.get(null);
    lock.update(null, record("me"));
    assertThat(fence.mayWrite(now.get())).isTrue();

    delegate.fail = true; // even if the release itself fails
    try {
      lock.update(null, record(""));
    } catch (IllegalStateException expected) {
      // refused
    }
    assertThat(fence.mayWrite(now.get())).isFalse();
  }

  @Test
  void someoneElsesRecordDoesNotOpenTheFence() {
    lock.get(null);
    lock.create(null, record("other"));
    assertThat(fence.mayWrite(now.get())).isFalse();
  }

  private static LeaderElectionRecord record(String holder) {
    ZonedDateTime t = ZonedDateTime.now(ZoneOffset.UTC);
    return new LeaderElectionRecord(holder, Duration.ofSeconds(15), t, t, 0);
  }

  /** A lock that stores nothing and can refuse writes. */
  private static final class FakeLock implements Lock {
    boolean fail;

    @Override
    public @Nullable LeaderElectionRecord get(@Nullable KubernetesClient client) {
      return null;
    }

    @Override
    public void create(@Nullable KubernetesClient client, LeaderElectionRecord record) {
      write();
    }

    @Override
    public void update(@Nullable KubernetesClient client, LeaderElectionRecord record) {
      write();
    }

    private void write() {
      if (fail) {
        throw new IllegalStateException("refused");
      }
    }

    @Override
    public String identity() {
      return "me";
    }

    @Override
    public String describe() {
      return "fake";
    }
  }
}
