package io.sharegpu.extender.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer store that keeps a reduced copy of each object (see {@link CachedObjects}) under the
 * usual {@code namespace/name} key. It reports full state, so fabric8 hands the stored copies to
 * the event handlers for the initial list: the copies must keep every field a handler reads.
 */
final class ReducedItemStore<T extends HasMetadata> implements ItemStore<T> {

  private final BasicItemStore<T> items = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
  private final UnaryOperator<T> reduce;

  ReducedItemStore(UnaryOperator<T> reduce) {
    this.reduce = reduce;
  }

  @Override
  public String getKey(T obj) {
    return items.getKey(obj);
  }

  @Override
  public T put(String key, T obj) {
    return items.put(key, reduce.apply(obj));
  }

  @Override
  public T remove(String key) {
    return items.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet();
  }

  @Override
  public Stream<T> values() {
    return items.values();
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public T get(String key) {
    return items.get(key);
  }
}
