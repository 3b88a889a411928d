package io.sharegpu.controller.reconcile;

/**
 * Says whether this replica may write to the API server now. With leader election it is the
 * leader's fence: false as soon as the Lease may be lost, checked before every write, because the
 * elector tells of a lost Lease asynchronously and a write after it could race the new leader's.
 */
@FunctionalInterface
public interface WriteGuard {

  /** A single replica, no election: always allowed. */
  WriteGuard ALWAYS = () -> true;

  /** Returns true while a write made now cannot race another replica's. */
  boolean mayWrite();
}
