package io.sharegpu.controller.reconcile;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.controller.model.PodSettings;
import io.sharegpu.controller.model.Preemptions;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SharePod controller: informers (SharePods, their pods, kube-scheduler's Preempted Events,
 * GPUNodes) feed a de-duplicating {@link ReconcileQueue}; worker threads take keys and run the
 * {@link SharePodReconciler}. Workers start once every informer has synced, so no decision is made
 * on a partial cache (this is also what readiness reports). Not restartable: {@link #start} once,
 * {@link #stop} once.
 *
 * <p>With leader election the informers start at once ({@link #startInformers}) and the workers
 * only when this replica becomes the leader ({@link #startWorkers}): a follower keeps its caches
 * warm and its queue filled, so that it takes over without a fresh list. Every write is checked
 * against the {@link WriteGuard}; {@link #stopWorkers} stops reconciling when the Lease is lost.
 */
public final class SharePodController {

  private static final Logger log = LoggerFactory.getLogger(SharePodController.class);

  private final KubernetesClient client;
  private final PodSettings settings;
  private final List<String> namespaces;
  private final int workers;
  private final Duration resync;
  private final Clock clock;
  private final MeterRegistry meters;
  private final ReconcileQueue queue;
  private final WriteGuard guard;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private @Nullable SharePodCaches caches;
  private @Nullable SharePodReconciler reconciler;
  private volatile boolean running;
  private volatile boolean reconciling;
  private boolean workersStarted;
  private boolean eventFieldSelector = true;

  /**
   * @param namespaces namespaces to watch; empty means all
   * @param workers reconciling threads (a key is never reconciled by two at once)
   * @param resync how often every SharePod is reconciled even without events
   */
  public SharePodController(
      KubernetesClient client,
      PodSettings settings,
      List<String> namespaces,
      int workers,
      Duration resync,
      Clock clock,
      MeterRegistry meters) {
    this(client, settings, namespaces, workers, resync, clock, meters, WriteGuard.ALWAYS);
  }

  /**
   * @param namespaces namespaces to watch; empty means all
   * @param workers reconciling threads (a key is never reconciled by two at once)
   * @param resync how often every SharePod is reconciled even without events
   * @param guard checked before every write (the leader's fence)
   */
  public SharePodController(
      KubernetesClient client,
      PodSettings settings,
      List<String> namespaces,
      int workers,
      Duration resync,
      Clock clock,
      MeterRegistry meters,
      WriteGuard guard) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1, got " + workers);
    }
    this.client = client;
    this.settings = settings;
    this.namespaces = List.copyOf(namespaces);
    this.workers = workers;
    this.resync = resync;
    this.clock = clock;
    this.meters = meters;
    this.guard = guard;
    this.queue = new ReconcileQueue(Duration.ofMillis(250), Duration.ofMinutes(2));
  }

  /**
   * Lists the Preempted Events only, through a field selector (Events are many); {@code false} for
   * the CRUD mock server, which knows no field selector on {@code reason}: the cache's index and
   * the event handler ignore the other Events anyway. Call before {@link #start}.
   */
  void selectPreemptedEventsOnServer(boolean onServer) {
    this.eventFieldSelector = onServer;
  }

  private SharedIndexInformer<Event> preemptedEvents(
      FilterWatchListDeletable<Event, EventList, Resource<Event>> events, long resyncMillis) {
    return (eventFieldSelector ? events.withField("reason", Preemptions.PREEMPTED_EVENT) : events)
        .runnableInformer(resyncMillis);
  }

  /** Starts the informers and the workers (a single replica, no election); returns at once. */
  public synchronized void start() {
    startInformers();
    startWorkers();
  }

  /**
   * Starts the informers (their events fill the queue, nobody takes from it yet); returns at once.
   */
  public synchronized void startInformers() {
    if (running) {
      return;
    }
    running = true;
    List<SharedIndexInformer<SharePod>> sharePodInformers = new ArrayList<>();
    List<SharedIndexInformer<Pod>> podInformers = new ArrayList<>();
    List<SharedIndexInformer<Event>> eventInformers = new ArrayList<>();
    long resyncMillis = resync.toMillis();
    if (namespaces.isEmpty()) {
      sharePodInformers.add(
          client.resources(SharePod.class).inAnyNamespace().runnableInformer(resyncMillis));
      podInformers.add(
          client
              .pods()
              .inAnyNamespace()
              .withLabel(ShareGpuAnnotations.SHAREPOD_LABEL)
              .runnableInformer(resyncMillis));
      eventInformers.add(preemptedEvents(client.v1().events().inAnyNamespace(), resyncMillis));
    } else {
      for (String namespace : namespaces) {
        sharePodInformers.add(
            client.resources(SharePod.class).inNamespace(namespace).runnableInformer(resyncMillis));
        podInformers.add(
            client
                .pods()
                .inNamespace(namespace)
                .withLabel(ShareGpuAnnotations.SHAREPOD_LABEL)
                .runnableInformer(resyncMillis));
        eventInformers.add(
            preemptedEvents(client.v1().events().inNamespace(namespace), resyncMillis));
      }
    }
    // kube-scheduler's Events about preempted pods, indexed by the pod's UID: only Preempted ones
    // are listed and watched (a field selector), so this stays small however busy the cluster is
    eventInformers.forEach(
        i -> i.addIndexers(Map.of(SharePodCaches.BY_POD_UID, SharePodCaches.PREEMPTED_POD_UID)));
    SharedIndexInformer<GPUNode> gpuNodes =
        client.resources(GPUNode.class).runnableInformer(resyncMillis);
    SharePodCaches ready =
        new SharePodCaches(sharePodInformers, podInformers, eventInformers, gpuNodes);
    caches = ready;
    SharePodEventHandler handler = new SharePodEventHandler(queue, () -> ready);
    sharePodInformers.forEach(i -> i.addEventHandler(handler.sharePods()));
    podInformers.forEach(i -> i.addEventHandler(handler.pods()));
    eventInformers.forEach(i -> i.addEventHandler(handler.preemptedEvents()));
    gpuNodes.addEventHandler(handler.gpuNodes());
    informers.addAll(sharePodInformers);
    informers.addAll(podInformers);
    informers.addAll(eventInformers);
    informers.add(gpuNodes);

    reconciler =
        new SharePodReconciler(
            client,
            ready,
            settings,
            new EventRecorder(client, clock, instanceName(), guard),
            clock,
            meters,
            guard);
    Gauge.builder("sharegpu.controller.queue.depth", queue, ReconcileQueue::depth)
        .description("SharePod keys waiting to be reconciled")
        .register(meters);
    for (SharedIndexInformer<?> informer : informers) {
      informer.exceptionHandler(
          (started, t) -> {
            log.warn("informer error (retrying): {}", t.toString());
            return true;
          });
      informer.start();
    }
    log.info(
        "SharePod controller started: namespaces {}, scheduler {}",
        namespaces.isEmpty() ? "(all)" : namespaces,
        settings.schedulerName());
  }

  /**
   * Starts the workers (this replica reconciles from now on); they take keys once every informer
   * has synced. Every SharePod in the cache is queued again: a new leader reconciles them all,
   * whatever its predecessor left half done. Call after {@link #startInformers}; at most once.
   */
  public synchronized void startWorkers() {
    SharePodReconciler r = reconciler;
    SharePodCaches ready = caches;
    if (!running || workersStarted || r == null || ready == null) {
      return;
    }
    workersStarted = true;
    reconciling = true;
    for (int i = 0; i < workers; i++) {
      Thread thread = new Thread(() -> work(r, ready), "sharepod-worker-" + i);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    Thread requeue =
        new Thread(
            () -> {
              try {
                while (running && !ready.synced()) {
                  Thread.sleep(100);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              }
              ready.sharePodKeys().forEach(queue::add);
            },
            "sharepod-requeue-all");
    requeue.setDaemon(true);
    requeue.start();
    log.info("reconciling with {} workers", workers);
  }

  /**
   * Stops the workers at once (the Lease is lost): nothing more is taken from the queue; a worker
   * in the middle of a reconcile is interrupted and its next write is refused by the guard.
   */
  public synchronized void stopWorkers() {
    reconciling = false;
    queue.shutDown();
    threads.forEach(Thread::interrupt);
  }

  /** Stops the workers and the informers. */
  public synchronized void stop() {
    if (!running) {
      return;
    }
    running = false;
    reconciling = false;
    queue.shutDown();
    threads.forEach(Thread::interrupt);
    informers.forEach(SharedIndexInformer::stop);
    for (Thread thread : threads) {
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    log.info("SharePod controller stopped");
  }

  /** Returns true once every informer has synced and the controller runs. */
  public boolean isReady() {
    SharePodCaches current = caches;
    return running && current != null && current.synced();
  }

  public boolean isRunning() {
    return running;
  }

  /** Returns true while the workers run (this replica is the leader, or there is no election). */
  public boolean isReconciling() {
    return reconciling;
  }

  private void work(SharePodReconciler reconciler, SharePodCaches ready) {
    Timer timer =
        Timer.builder("sharegpu.controller.reconcile")
            .description("Time to reconcile one SharePod")
            .register(meters);
    try {
      while (running && !ready.synced()) {
        Thread.sleep(100); // start-up only: never decide on a partial cache
      }
      while (running && reconciling) {
        Optional<ResourceKey> next = queue.take();
        if (next.isEmpty()) {
          return;
        }
        ResourceKey key = next.get();
        long start = System.nanoTime();
        String result = "ok";
        try {
          Optional<Duration> again = reconciler.reconcile(key);
          queue.forget(key);
          if (again.isPresent()) {
            result = "requeue";
            queue.addAfter(key, again.get());
          }
        } catch (NotLeaderException e) {
          // the Lease may be lost: stop here; if it was only late, the key comes back
          result = "not-leader";
          queue.addRateLimited(key);
          log.debug("{}", e.getMessage());
        } catch (KubernetesClientException e) {
          Duration backoff = queue.addRateLimited(key);
          if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
            // our cache was behind the API server (usually our own last write): look again
            result = "conflict";
            log.debug("{}: conflict, retrying in {} ms", key, backoff.toMillis());
          } else {
            result = "error";
            log.warn(
                "{}: reconcile failed, retrying in {} ms: {}",
                key,
                backoff.toMillis(),
                e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage()
                    : e.toString());
          }
        } catch (RuntimeException e) {
          result = "error";
          Duration backoff = queue.addRateLimited(key);
          log.warn("{}: reconcile failed, retrying in {} ms", key, backoff.toMillis(), e);
        } finally {
          queue.done(key);
          timer.record(Duration.ofNanos(System.nanoTime() - start));
          meters.counter("sharegpu.controller.reconciles", "result", result).increment();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String instanceName() {
    String host = System.getenv("HOSTNAME");
    return host == null || host.isEmpty() ? "sharepod-controller" : host;
  }
}
