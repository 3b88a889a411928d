package io.sharegpu.extender.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * When each reservation expires, by pod UID. Every reservation lives for the same TTL from its
 * (last) write, so the order of writes is the order of expiry: {@link #expired} looks only at the
 * oldest ones. Not thread-safe: {@link SchedulingState} guards it with its lock. The caller passes
 * {@code now}, so expiry is tested without sleeping.
 */
final class Reservations {

  private final Duration ttl;
  private final LinkedHashMap<String, Instant> expiresAt = new LinkedHashMap<>();

  Reservations(Duration ttl) {
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("reservation TTL must be >= 0, got " + ttl);
    }
    this.ttl = ttl;
  }

  /** Holds (or holds again, from now) the reservation of {@code uid}. */
  void put(String uid, Instant now) {
    expiresAt.remove(uid);
    expiresAt.put(uid, now.plus(ttl));
  }

  /** Forgets the reservation of {@code uid}, if any. */
  void remove(String uid) {
    expiresAt.remove(uid);
  }

  /**
   * Removes and returns the reservations whose TTL has passed at {@code now}, oldest first. E.g.
   * with a TTL of 30 s, a reservation written at 12:00:00 expires at {@code now} = 12:00:30.
   */
  List<String> expired(Instant now) {
    List<String> out = List.of();
    for (Iterator<Map.Entry<String, Instant>> it = expiresAt.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, Instant> e = it.next();
      if (e.getValue().isAfter(now)) {
        break;
      }
      if (out.isEmpty()) {
        out = new ArrayList<>();
      }
      out.add(e.getKey());
      it.remove();
    }
    return out;
  }

  /** How many reservations wait for a bind. */
  int size() {
    return expiresAt.size();
  }

  /** Forgets every reservation. */
  void clear() {
    expiresAt.clear();
  }
}
