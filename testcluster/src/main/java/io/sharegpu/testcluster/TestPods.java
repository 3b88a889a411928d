package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;

/**
 * Pods that ask ShareGPU for GPUs, written the way DESIGN.md's contract reads them, and the checks
 * e2e tests make on them once kube-scheduler has called the extender.
 *
 * <pre>{@code
 * Pod p = TestPods.pod("train-1").namespace("ns").share(500, 8192).model("H100").build();
 * TestPods.pod("a").namespace(NS).share(250, 0).gracePeriod(0).create(client);
 * TestPods.awaitBound(client, NS, "a", Duration.ofSeconds(60));
 * }</pre>
 */
public final class TestPods {

  /** The image of a GPU container unless {@link Builder#image} says otherwise. */
  public static final String PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

  private static final Duration POLL = Duration.ofMillis(200);

  private TestPods() {}

  /** Starts a pod named {@code name} for {@code sharegpu-scheduler}, with no container yet. */
  public static Builder pod(String name) {
    return new Builder(name);
  }

  /**
   * A container asking for {@code milli} GPU compute (1000 = one GPU) and, if {@code memoryMib >
   * 0}, that much GPU memory in MiB, as limits and equal requests (the extended resources of {@code
   * ShareGpuResources}).
   */
  public static Container gpuContainer(String name, String image, int milli, long memoryMib) {
    Map<String, Quantity> limits = gpuLimits(milli, memoryMib);
    return new ContainerBuilder()
        .withName(name)
        .withImage(image)
        .withNewResources()
        .withLimits(limits)
        .withRequests(limits)
        .endResources()
        .build();
  }

  /** The GPU compute the pod's first container asks for, from its {@code gpu-milli} limit. */
  public static int gpuMilli(Pod pod) {
    return Integer.parseInt(
        pod.getSpec()
            .getContainers()
            .get(0)
            .getResources()
            .getLimits()
            .get(ShareGpuResources.GPU_MILLI)
            .getAmount());
  }

  /**
   * The pod's GPU assignment decoded from its annotations, or empty if its GPU request is not valid
   * or it carries no assignment. An unbound pod is decoded against node {@code ""}.
   */
  public static Optional<PodAssignment> assignment(Pod pod) {
    ParsedRequest parsed = PodGpuRequestParser.parse(pod);
    if (!(parsed instanceof ParsedRequest.Valid v)) {
      return Optional.empty();
    }
    String node = pod.getSpec().getNodeName();
    return AssignmentAnnotations.decode(
        node == null ? "" : node, pod.getMetadata().getAnnotations(), v.request().containerNames());
  }

  /**
   * Waits up to {@code max} (polling every 200 ms) until pod {@code namespace/name} has a node and
   * the {@code assigned-gpus} annotation, i.e. the extender has bound it; returns the bound pod.
   */
  public static Pod awaitBound(
      KubernetesClient client, String namespace, String name, Duration max) {
    Pod[] bound = new Pod[1];
    Awaitility.await()
        .atMost(max)
        .pollInterval(POLL)
        .untilAsserted(
            () -> {
              Pod p = client.pods().inNamespace(namespace).withName(name).get();
              assertThat(p.getSpec().getNodeName()).as(name + " bound").isNotNull();
              assertThat(p.getMetadata().getAnnotations())
                  .containsKey(ShareGpuAnnotations.ASSIGNED_GPUS);
              bound[0] = p;
            });
    return bound[0];
  }

  /**
   * Waits up to {@code max} (polling every 200 ms) until pod {@code namespace/name} is bound to
   * {@code node} and carries the {@code assigned-gpus} annotation.
   */
  public static void awaitBoundTo(
      KubernetesClient client, String namespace, String name, String node, Duration max) {
    Awaitility.await()
        .atMost(max)
        .pollInterval(POLL)
        .untilAsserted(
            () -> {
              Pod p = client.pods().inNamespace(namespace).withName(name).get();
              assertThat(p.getSpec().getNodeName()).as(name + " bound").isEqualTo(node);
              assertThat(p.getMetadata().getAnnotations())
                  .containsKey(ShareGpuAnnotations.ASSIGNED_GPUS);
            });
  }

  /**
   * Deletes pod {@code namespace/name} at once (grace period 0) and waits up to {@code max} until
   * the API server no longer has it.
   */
  public static void deleteAndAwaitGone(
      KubernetesClient client, String namespace, String name, Duration max) {
    client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
    Awaitility.await()
        .atMost(max)
        .until(() -> client.pods().inNamespace(namespace).withName(name).get() == null);
  }

  /**
   * Creates {@code pod} in its namespace until a mutating webhook has acted on it: a webhook
   * configuration reaches kube-apiserver's informer asynchronously, so while the stored pod fails
   * {@code mutated} it is deleted ({@link #deleteAndAwaitGone}, 30 s) and created again, every 500
   * ms for up to 60 s. Returns the stored, mutated pod.
   */
  public static Pod createUntilMutated(KubernetesClient client, Pod pod, Predicate<Pod> mutated) {
    String namespace = pod.getMetadata().getNamespace();
    return Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              Pod created = client.pods().inNamespace(namespace).resource(pod).create();
              if (mutated.test(created)) {
                return created;
              }
              deleteAndAwaitGone(
                  client, namespace, created.getMetadata().getName(), Duration.ofSeconds(30));
              return null;
            },
            created -> created != null);
  }

  private static Map<String, Quantity> gpuLimits(int milli, long memoryMib) {
    Map<String, Quantity> limits = new LinkedHashMap<>();
    limits.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(milli)));
    if (memoryMib > 0) {
      limits.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(memoryMib)));
    }
    return limits;
  }

  /**
   * A pod under construction. Unless set: no namespace, uid or labels, scheduler {@code
   * sharegpu-scheduler}, image {@link #PAUSE_IMAGE}, no grace period (the API server's default).
   */
  public static final class Builder {

    private final String name;
    private @Nullable String namespace;
    private @Nullable String uid;
    private @Nullable String resourceVersion;
    private String image = PAUSE_IMAGE;
    private @Nullable String schedulerName = ShareGpuAnnotations.SCHEDULER_NAME;
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> nodeSelector = new LinkedHashMap<>();
    private final List<Container> containers = new ArrayList<>();
    private @Nullable Long gracePeriodSeconds;
    private @Nullable Integer priority;
    private @Nullable String priorityClassName;
    private @Nullable String nodeName;
    private @Nullable String phase;
    private @Nullable String nominatedNodeName;
    private @Nullable String startTime;
    private @Nullable String deletionTimestamp;

    private Builder(String name) {
      this.name = name;
    }

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder uid(String uid) {
      this.uid = uid;
      return this;
    }

    /** {@code metadata.resourceVersion}, as the API server returns it. */
    public Builder resourceVersion(String resourceVersion) {
      this.resourceVersion = resourceVersion;
      return this;
    }

    /** The image of the GPU containers added after this call. */
    public Builder image(String image) {
      this.image = image;
      return this;
    }

    /** {@code null} leaves {@code spec.schedulerName} unset (the default scheduler). */
    public Builder schedulerName(@Nullable String schedulerName) {
      this.schedulerName = schedulerName;
      return this;
    }

    /**
     * Adds container {@code main} asking for {@code milli} GPU compute (1000 = one whole GPU) and,
     * if {@code memoryMib > 0}, that much GPU memory in MiB.
     */
    public Builder share(int milli, long memoryMib) {
      return container("main", milli, memoryMib);
    }

    /** Adds a GPU container: see {@link TestPods#gpuContainer}. */
    public Builder container(String containerName, int milli, long memoryMib) {
      containers.add(gpuContainer(containerName, image, milli, memoryMib));
      return this;
    }

    /** Adds containers as they are. */
    public Builder containers(Container... more) {
      containers.addAll(List.of(more));
      return this;
    }

    /** The acceptable GPU models ({@code sharegpu.io/gpu-models}, comma-separated). */
    public Builder model(String models) {
      return annotation(ShareGpuAnnotations.GPU_MODELS, models);
    }

    /** The GPUs the pod must have ({@code sharegpu.io/gpu-uuids}, comma-separated UUIDs). */
    public Builder pinned(String uuids) {
      return annotation(ShareGpuAnnotations.GPU_UUIDS, uuids);
    }

    public Builder annotation(String key, String value) {
      annotations.put(key, value);
      return this;
    }

    public Builder annotations(Map<String, String> more) {
      annotations.putAll(more);
      return this;
    }

    public Builder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    public Builder nodeSelector(String key, String value) {
      nodeSelector.put(key, value);
      return this;
    }

    /** {@code spec.terminationGracePeriodSeconds}. */
    public Builder gracePeriod(long seconds) {
      this.gracePeriodSeconds = seconds;
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public Builder priorityClass(String priorityClassName) {
      this.priorityClassName = priorityClassName;
      return this;
    }

    /** {@code spec.nodeName}: the pod is bound there. */
    public Builder nodeName(String node) {
      this.nodeName = node;
      return this;
    }

    /**
     * Bound as the extender binds: {@code spec.nodeName} is the assignment's node and the
     * annotations are {@link AssignmentAnnotations#encode} of it at {@code at}.
     */
    public Builder assigned(PodAssignment assignment, Instant at) {
      annotations.putAll(AssignmentAnnotations.encode(assignment, at));
      return nodeName(assignment.nodeName());
    }

    /** {@code status.phase}, e.g. {@code Running}. */
    public Builder phase(String phase) {
      this.phase = phase;
      return this;
    }

    /** {@code status.nominatedNodeName}: kube-scheduler preempted for this pod there. */
    public Builder nominatedNode(String node) {
      this.nominatedNodeName = node;
      return this;
    }

    /** {@code status.startTime} (RFC 3339). */
    public Builder startTime(String timestamp) {
      this.startTime = timestamp;
      return this;
    }

    /** {@code metadata.deletionTimestamp} (RFC 3339): the pod is terminating. */
    public Builder deleting(String timestamp) {
      this.deletionTimestamp = timestamp;
      return this;
    }

    public Pod build() {
      PodBuilder b =
          new PodBuilder()
              .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .withUid(uid)
              .withResourceVersion(resourceVersion)
              .withDeletionTimestamp(deletionTimestamp)
              .endMetadata()
              .withNewSpec()
              .withSchedulerName(schedulerName)
              .withContainers(containers)
              .withTerminationGracePeriodSeconds(gracePeriodSeconds)
              .withPriority(priority)
              .withPriorityClassName(priorityClassName)
              .withNodeName(nodeName)
              .endSpec();
      if (!annotations.isEmpty()) {
        b.editMetadata().withAnnotations(new LinkedHashMap<>(annotations)).endMetadata();
      }
      if (!labels.isEmpty()) {
        b.editMetadata().withLabels(new LinkedHashMap<>(labels)).endMetadata();
      }
      if (!nodeSelector.isEmpty()) {
        b.editSpec().withNodeSelector(new LinkedHashMap<>(nodeSelector)).endSpec();
      }
      if (phase != null || nominatedNodeName != null || startTime != null) {
        b.withNewStatus()
            .withPhase(phase)
            .withNominatedNodeName(nominatedNodeName)
            .withStartTime(startTime)
            .endStatus();
      }
      return b.build();
    }

    /** Creates the pod in its namespace; returns what the API server stored. */
    public Pod create(KubernetesClient client) {
      Pod pod = build();
      if (namespace == null) {
        return client.pods().resource(pod).create();
      }
      return client.pods().inNamespace(namespace).resource(pod).create();
    }
  }
}
