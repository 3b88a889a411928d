package io.sharegpu.extender.bind;

/** Where a bind goes: this replica's {@link PodBinder}, or the bind leader. */
@FunctionalInterface
public interface BindRouter {

  /** Binds pod {@code namespace/name} with UID {@code uid} to {@code node}. */
  BindOutcome bind(String namespace, String name, String uid, String node);
}
