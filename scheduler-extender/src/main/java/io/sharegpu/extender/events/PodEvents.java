package io.sharegpu.extender.events;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes Kubernetes Events on pods (asynchronously, at most one per pod, reason and message a
 * minute) so {@code kubectl describe pod} says why ShareGPU could not place or bind it.
 */
public final class PodEvents implements AutoCloseable {

  /** Reason of the event written when no node has GPUs that fit the pod. */
  public static final String GPU_UNSCHEDULABLE = "GpuUnschedulable";

  /** Reason of the event written when a bind fails. */
  public static final String BIND_FAILED = "GpuBindFailed";

  /** Reason of the event written when the pod's GPU request is invalid. */
  public static final String INVALID_REQUEST = "InvalidGpuRequest";

  private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);
  private static final String COMPONENT = "sharegpu-scheduler-extender";

  private final @Nullable KubernetesClient client;
  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "pod-events");
            t.setDaemon(true);
            return t;
          });
  private final Cache<String, Boolean> recent =
      Caffeine.newBuilder().expireAfterWrite(Duration.ofMinutes(1)).maximumSize(50_000).build();

  /** Creates the writer; a null client makes it a no-op. */
  public PodEvents(@Nullable KubernetesClient client) {
    this.client = client;
  }

  /** Records a Warning event on the pod. */
  public void warning(String namespace, String name, String uid, String reason, String message) {
    record(namespace, name, uid, "Warning", reason, message);
  }

  /** Records a Normal event on the pod. */
  public void normal(String namespace, String name, String uid, String reason, String message) {
    record(namespace, name, uid, "Normal", reason, message);
  }

  private void record(
      String namespace, String name, String uid, String type, String reason, String message) {
    KubernetesClient c = client;
    if (c == null || namespace.isEmpty() || name.isEmpty()) {
      return;
    }
    String msg = message.length() > 1000 ? message.substring(0, 997) + "..." : message;
    if (recent.asMap().putIfAbsent(uid + "|" + reason + "|" + msg, Boolean.TRUE) != null) {
      return;
    }
    executor.execute(
        () -> {
          try {
            String now = DateTimeFormatter.ISO_INSTANT.format(Instant.now());
            c.v1()
                .events()
                .inNamespace(namespace)
                .resource(
                    new EventBuilder()
                        .withNewMetadata()
                        .withName(name + "." + UUID.randomUUID().toString().substring(0, 13))
                        .withNamespace(namespace)
                        .endMetadata()
                        .withNewInvolvedObject()
                        .withApiVersion("v1")
                        .withKind("Pod")
                        .withNamespace(namespace)
                        .withName(name)
                        .withUid(uid)
                        .endInvolvedObject()
                        .withType(type)
                        .withReason(reason)
                        .withMessage(msg)
                        .withFirstTimestamp(now)
                        .withLastTimestamp(now)
                        .withCount(1)
                        .withNewSource()
                        .withComponent(COMPONENT)
                        .endSource()
                        .build())
                .create();
          } catch (RuntimeException e) {
            LOG.debug("cannot record event {} on {}/{}: {}", reason, namespace, name, e.toString());
          }
        });
  }

  @Override
  public void close() {
    executor.shutdown();
  }
}
