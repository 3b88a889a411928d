package io.sharegpu.controller.reconcile;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A de-duplicating work queue of SharePod keys, in the manner of client-go's workqueue.
 *
 * <p>A key is queued at most once however many events arrive for it. A key is handed to one worker
 * at a time: a key added while a worker processes it is queued again when the worker calls {@link
 * #done}, so the latest state is always reconciled and never by two workers at once. {@link
 * #addRateLimited} requeues after an exponential backoff per key (base x 2^(failures-1), capped),
 * which {@link #forget} resets.
 */
public final class ReconcileQueue {

  private final Object lock = new Object();
  private final LinkedHashSet<ResourceKey> queued = new LinkedHashSet<>();
  private final Set<ResourceKey> processing = new HashSet<>();
  private final Set<ResourceKey> dirty = new HashSet<>();
  private final Map<ResourceKey, Integer> failures = new HashMap<>();
  private final ScheduledExecutorService timer;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private boolean shutDown;

  /**
   * Returns a queue whose backoff starts at {@code baseDelay} and doubles up to {@code maxDelay}.
   */
  public ReconcileQueue(Duration baseDelay, Duration maxDelay) {
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "reconcile-queue-timer");
              t.setDaemon(true);
              return t;
            });
  }

  /** Queues {@code key} unless it is already queued. */
  public void add(ResourceKey key) {
    synchronized (lock) {
      if (shutDown) {
        return;
      }
      if (processing.contains(key)) {
        dirty.add(key);
      } else if (queued.add(key)) {
        lock.notifyAll();
      }
    }
  }

  /** Queues {@code key} after {@code delay}. */
  public void addAfter(ResourceKey key, Duration delay) {
    if (delay.isZero() || delay.isNegative()) {
      add(key);
      return;
    }
    synchronized (lock) {
      if (shutDown) {
        return;
      }
      timer.schedule(() -> add(key), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Queues {@code key} after its backoff and returns that backoff. */
  public Duration addRateLimited(ResourceKey key) {
    Duration delay;
    synchronized (lock) {
      int n = failures.merge(key, 1, Integer::sum);
      delay = backoff(n);
    }
    addAfter(key, delay);
    return delay;
  }

  /** Resets the backoff of {@code key} (after it was reconciled successfully). */
  public void forget(ResourceKey key) {
    synchronized (lock) {
      failures.remove(key);
    }
  }

  /**
   * Waits for a key and marks it as being processed; empty once the queue is shut down. Every key
   * taken must be passed to {@link #done}.
   */
  public Optional<ResourceKey> take() throws InterruptedException {
    synchronized (lock) {
      while (queued.isEmpty() && !shutDown) {
        lock.wait();
      }
      if (shutDown) {
        return Optional.empty();
      }
      Iterator<ResourceKey> first = queued.iterator();
      ResourceKey key = first.next();
      first.remove();
      processing.add(key);
      return Optional.of(key);
    }
  }

  /** Marks {@code key} as processed; queues it again if it was added meanwhile. */
  public void done(ResourceKey key) {
    synchronized (lock) {
      processing.remove(key);
      if (dirty.remove(key) && !shutDown && queued.add(key)) {
        lock.notifyAll();
      }
    }
  }

  /** Returns how many keys wait to be processed. */
  public int depth() {
    synchronized (lock) {
      return queued.size();
    }
  }

  /** Wakes every waiting worker with an empty result and drops all keys. */
  public void shutDown() {
    synchronized (lock) {
      shutDown = true;
      queued.clear();
      dirty.clear();
      lock.notifyAll();
    }
    timer.shutdownNow();
  }

  private Duration backoff(int failures) {
    long millis = baseDelay.toMillis() << Math.min(failures - 1, 30);
    return millis <= 0 || millis > maxDelay.toMillis() ? maxDelay : Duration.ofMillis(millis);
  }
}
