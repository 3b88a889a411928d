package io.sharegpu.controller.reconcile;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.controller.model.SharePodEvent;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events on SharePods ({@code kubectl describe shp} shows them). Failing to record
 * an Event is logged and otherwise ignored: Events are advice, the status is the record.
 */
final class EventRecorder {

  static final String COMPONENT = "sharepod-controller";

  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
  private static final int MAX_MESSAGE = 1024;

  private final KubernetesClient client;
  private final Clock clock;
  private final String instance;
  private final AtomicLong sequence = new AtomicLong();
  private final WriteGuard guard;

  EventRecorder(KubernetesClient client, Clock clock, String instance, WriteGuard guard) {
    this.client = client;
    this.guard = guard;
    this.clock = clock;
    this.instance = instance;
  }

  /** Records {@code event} on {@code sharePod}; nothing when this replica may not write. */
  void record(SharePod sharePod, SharePodEvent event) {
    if (!guard.mayWrite()) {
      log.debug("not the leader: Event {} not recorded", event.reason());
      return;
    }
    String name = sharePod.getMetadata().getName();
    String namespace = sharePod.getMetadata().getNamespace();
    String now =
        DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
    String message =
        event.message().length() > MAX_MESSAGE
            ? event.message().substring(0, MAX_MESSAGE - 3) + "..."
            : event.message();
    Event e =
        new EventBuilder()
            .withNewMetadata()
            .withName(
                (name.length() > 200 ? name.substring(0, 200) : name)
                    + "."
                    + Long.toHexString(clock.millis())
                    + Long.toHexString(sequence.incrementAndGet()))
            .withNamespace(namespace)
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(sharePod.getApiVersion())
                    .withKind(sharePod.getKind())
                    .withName(name)
                    .withNamespace(namespace)
                    .withUid(sharePod.getMetadata().getUid())
                    .withResourceVersion(sharePod.getMetadata().getResourceVersion())
                    .build())
            .withType(event.type())
            .withReason(event.reason())
            .withMessage(message)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .withNewSource()
            .withComponent(COMPONENT)
            .endSource()
            .withReportingComponent("sharegpu.io/" + COMPONENT)
            .withReportingInstance(instance)
            .build();
    try {
      client.v1().events().inNamespace(namespace).resource(e).create();
      log.info("{}/{}: {} {}: {}", namespace, name, event.type(), event.reason(), message);
    } catch (KubernetesClientException ex) {
      log.warn(
          "{}/{}: could not record event {} ({}): {}",
          namespace,
          name,
          event.reason(),
          message,
          ex.getMessage());
    }
  }
}
