package io.sharegpu.extender.web;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WARN line per rejected request, at most {@link #PER_SECOND} a second: a flood of hostile
 * requests cannot flood the log. The next line logged says how many were left out. No stack trace:
 * a rejected request is the caller's mistake, not the extender's.
 */
public final class RejectionLog {

  /** Lines logged per second at most. */
  static final int PER_SECOND = 10;

  private static final Logger log = LoggerFactory.getLogger(RejectionLog.class);
  private static final AtomicLong windowStart = new AtomicLong();
  private static final AtomicInteger inWindow = new AtomicInteger();
  private static final AtomicInteger suppressed = new AtomicInteger();

  private RejectionLog() {}

  /** Logs that a request to {@code path} was answered {@code status} because of {@code why}. */
  public static void rejected(String path, int status, String why) {
    long now = System.nanoTime() / 1_000_000_000L;
    long start = windowStart.get();
    if (now != start && windowStart.compareAndSet(start, now)) {
      inWindow.set(0);
    }
    if (inWindow.incrementAndGet() > PER_SECOND) {
      suppressed.incrementAndGet();
      return;
    }
    int left = suppressed.getAndSet(0);
    if (left > 0) {
      log.warn(
          "rejected request to {}: {} {} ({} more rejections not logged)", path, status, why, left);
    } else {
      log.warn("rejected request to {}: {} {}", path, status, why);
    }
  }
}
