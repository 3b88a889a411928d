package io.sharegpu.webhook.admission;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuEnv;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.webhook.admission.spelling.Peer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Decides what happens to a pod being created: pods without sharegpu.io resources pass untouched;
 * GPU pods are denied when their request is invalid (with {@link PodGpuRequestParser}'s messages)
 * or when they try to choose their own GPU, and otherwise get the downward-API env, the MPS pipe
 * mount and the ShareGPU scheduler name patched in.
 *
 * <p>A pod chooses its own GPU when any container sets {@code NVIDIA_VISIBLE_DEVICES} or a {@code
 * CUDA_MPS_*} variable in any form other than exactly {@link ShareGpuEnv#downwardApiEnv} for that
 * (GPU) container, sets {@code spec.nodeName} (bypassing the scheduler and its GPU choice), or
 * carries assignment annotations ({@code sharegpu.io/assigned-gpus} and friends, which only the
 * extender's bind writes). Pods made by the SharePod controller already carry the exact injected
 * form and pass unchanged.
 *
 * <p>The decision is idempotent: applying the patch and deciding again gives {@link
 * AdmissionDecision.Unchanged}. Pure: no I/O, safe to share between threads.
 */
public final class PodAdmissionPolicy {

  /** The scheduler name kube-apiserver defaults an empty {@code spec.schedulerName} to. */
  public static final String DEFAULT_SCHEDULER = "default-scheduler";

  private static final String MPS_PREFIX = "CUDA_MPS_";

  private static final List<String> ASSIGNMENT_KEYS =
      List.of(
          ShareGpuAnnotations.ASSIGNED_GPUS,
          ShareGpuAnnotations.ASSIGNED_MEMORY_MIB,
          ShareGpuAnnotations.MPS_ACTIVE_THREAD_PERCENTAGE,
          ShareGpuAnnotations.MPS_PINNED_MEM_LIMIT,
          ShareGpuAnnotations.ASSIGNED_NODE,
          ShareGpuAnnotations.ASSIGNED_AT);

  private final String schedulerName;
  private final Set<String> partitionSchedulers;
  private final boolean mountMpsPipe;
  private final Set<Peer> translate;

  /**
   * @param schedulerName the kube-scheduler profile that calls the ShareGPU extender; pods left at
   *     {@value #DEFAULT_SCHEDULER} are moved to it, pods naming any other scheduler are denied
   * @param mountMpsPipe whether to inject the MPS pipe volume and mount (off for clusters without
   *     MPS whose Pod Security level forbids hostPath volumes)
   */
  public PodAdmissionPolicy(String schedulerName, boolean mountMpsPipe) {
    this(schedulerName, mountMpsPipe, Set.of());
  }

  /**
   * @param translate the peers whose spellings are translated in every namespace (the chart's
   *     {@code webhook.translate}); see {@link SpellingTranslator}
   */
  public PodAdmissionPolicy(String schedulerName, boolean mountMpsPipe, Set<Peer> translate) {
    this(schedulerName, mountMpsPipe, translate, Set.of());
  }

  /**
   * @param partitionSchedulers the scheduler names of further ShareGPU releases over other node
   *     pools: GPU pods naming one of them are admitted (and patched) like pods naming {@code
   *     schedulerName}
   */
  public PodAdmissionPolicy(
      String schedulerName,
      boolean mountMpsPipe,
      Set<Peer> translate,
      Set<String> partitionSchedulers) {
    if (schedulerName.isBlank()) {
      throw new IllegalArgumentException("schedulerName must not be blank");
    }
    for (String name : partitionSchedulers) {
      if (name.isBlank() || name.equals(DEFAULT_SCHEDULER)) {
        throw new IllegalArgumentException(
            "a partition scheduler name must be neither blank nor " + DEFAULT_SCHEDULER);
      }
    }
    this.schedulerName = schedulerName;
    this.partitionSchedulers = Set.copyOf(partitionSchedulers);
    this.mountMpsPipe = mountMpsPipe;
    this.translate = translate.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(translate));
  }

  /**
   * Returns a policy with the default scheduler name {@value ShareGpuAnnotations#SCHEDULER_NAME}.
   */
  public static PodAdmissionPolicy withDefaults() {
    return new PodAdmissionPolicy(ShareGpuAnnotations.SCHEDULER_NAME, true);
  }

  /** Decides on a pod being created, translating the cluster-wide peers' spellings. */
  public AdmissionDecision decide(Pod pod) {
    return decide(pod, Set.of());
  }

  /**
   * Decides on a pod being created in a namespace that also opted in to {@code namespacePeers}'
   * spellings. A pod written for an enabled peer is translated first (or denied when the spelling
   * is mixed or out of the peer's rules), then decided as if written for ShareGPU; the patch does
   * both.
   */
  public AdmissionDecision decide(Pod pod, Set<Peer> namespacePeers) {
    Set<Peer> peers = EnumSet.noneOf(Peer.class);
    peers.addAll(translate);
    peers.addAll(namespacePeers);
    SpellingTranslator.Outcome outcome = SpellingTranslator.translate(pod, peers);
    if (outcome instanceof SpellingTranslator.Refused refused) {
      return new AdmissionDecision.Denied(refused.reasons());
    }
    if (!(outcome instanceof SpellingTranslator.Rewritten rewritten)) {
      return decideShareGpu(pod);
    }
    AdmissionDecision decision = decideShareGpu(rewritten.pod());
    if (decision instanceof AdmissionDecision.Denied) {
      return decision;
    }
    List<PatchOperation> patch = new ArrayList<>(rewritten.patch());
    if (decision instanceof AdmissionDecision.Patched patched) {
      patch.addAll(patched.patch());
    }
    return new AdmissionDecision.Patched(patch);
  }

  private AdmissionDecision decideShareGpu(Pod pod) {
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
    Map<String, String> annotations =
        meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();

    List<String> unknown = unknownResources(spec);
    ParsedRequest parsed = PodGpuRequestParser.parse(spec, annotations);
    if (parsed instanceof ParsedRequest.NoGpu) {
      return unknown.isEmpty()
          ? new AdmissionDecision.NotGpu()
          : new AdmissionDecision.Denied(unknown);
    }
    if (parsed instanceof ParsedRequest.Invalid invalid) {
      List<String> reasons = new ArrayList<>(invalid.errors());
      reasons.addAll(unknown);
      return new AdmissionDecision.Denied(reasons);
    }
    PodGpuRequest request = ((ParsedRequest.Valid) parsed).request();
    Set<String> gpuContainers = new LinkedHashSet<>(request.containerNames());

    List<String> reasons = new ArrayList<>(unknown);
    checkEnv(spec, gpuContainers, reasons);
    checkScheduling(spec, reasons);
    checkAnnotations(annotations, reasons);
    if (mountMpsPipe) {
      checkMpsPipe(spec, gpuContainers, reasons);
    }
    if (!reasons.isEmpty()) {
      return new AdmissionDecision.Denied(reasons);
    }

    List<PatchOperation> patch = patch(spec, gpuContainers);
    return patch.isEmpty()
        ? new AdmissionDecision.Unchanged()
        : new AdmissionDecision.Patched(patch);
  }

  private List<PatchOperation> patch(PodSpec spec, Set<String> gpuContainers) {
    List<PatchOperation> patch = new ArrayList<>();
    String current = spec.getSchedulerName();
    if (current == null || current.isEmpty() || current.equals(DEFAULT_SCHEDULER)) {
      patch.add(PatchOperation.add("/spec/schedulerName", schedulerName));
    }
    List<Container> containers = nonNull(spec.getContainers());
    for (int i = 0; i < containers.size(); i++) {
      Container container = containers.get(i);
      if (!gpuContainers.contains(container.getName())) {
        continue;
      }
      String base = "/spec/containers/" + i;
      List<EnvVar> env = nonNull(container.getEnv());
      List<EnvVar> missing = new ArrayList<>();
      for (EnvVar wanted : ShareGpuEnv.downwardApiEnv(container.getName())) {
        if (env.stream().noneMatch(e -> wanted.getName().equals(e.getName()))) {
          missing.add(wanted);
        }
      }
      addAll(patch, base + "/env", isEmpty(container.getEnv()), missing);
      if (mountMpsPipe
          && nonNull(container.getVolumeMounts()).stream()
              .noneMatch(m -> ShareGpuEnv.MPS_PIPE_VOLUME.equals(m.getName()))) {
        addAll(
            patch,
            base + "/volumeMounts",
            isEmpty(container.getVolumeMounts()),
            List.of(ShareGpuEnv.mpsPipeMount()));
      }
    }
    if (mountMpsPipe
        && nonNull(spec.getVolumes()).stream()
            .noneMatch(v -> ShareGpuEnv.MPS_PIPE_VOLUME.equals(v.getName()))) {
      addAll(
          patch, "/spec/volumes", isEmpty(spec.getVolumes()), List.of(ShareGpuEnv.mpsPipeVolume()));
    }
    return patch;
  }

  /**
   * Adds the whole list where the array is missing or empty, else appends item by item. An empty
   * list counts as missing: kube-apiserver omits empty arrays from the JSON it sends, so {@code
   * /env/-} on a container without env would fail to apply.
   */
  private static void addAll(
      List<PatchOperation> patch, String arrayPath, boolean arrayMissing, List<?> items) {
    if (items.isEmpty()) {
      return;
    }
    if (arrayMissing) {
      patch.add(PatchOperation.add(arrayPath, List.copyOf(items)));
      return;
    }
    for (Object item : items) {
      patch.add(PatchOperation.add(arrayPath + "/-", item));
    }
  }

  private static void checkEnv(PodSpec spec, Set<String> gpuContainers, List<String> reasons) {
    for (Container init : nonNull(spec.getInitContainers())) {
      checkEnv(init, false, reasons);
    }
    for (Container container : nonNull(spec.getContainers())) {
      checkEnv(container, gpuContainers.contains(container.getName()), reasons);
    }
  }

  private static void checkEnv(Container container, boolean gpu, List<String> reasons) {
    String name = container.getName() == null ? "" : container.getName();
    List<EnvVar> allowed = gpu ? ShareGpuEnv.downwardApiEnv(name) : List.of();
    for (EnvVar env : nonNull(container.getEnv())) {
      String var = env.getName() == null ? "" : env.getName();
      if (!isReserved(var) || allowed.stream().anyMatch(a -> sameEnv(a, env))) {
        continue;
      }
      reasons.add(
          "container \""
              + name
              + "\" sets "
              + var
              + " itself: ShareGPU chooses the GPU and sets "
              + (gpu
                  ? "this variable from the assignment annotations; remove it from the pod"
                  : "this variable only in containers that request "
                      + ShareGpuResources.GPU_MILLI
                      + "; remove it"));
    }
  }

  private void checkScheduling(PodSpec spec, List<String> reasons) {
    String nodeName = spec.getNodeName();
    if (nodeName != null && !nodeName.isEmpty()) {
      reasons.add(
          "spec.nodeName is set to \""
              + nodeName
              + "\": a pod requesting sharegpu.io resources must be placed by "
              + schedulerName
              + ", which assigns its GPUs; remove spec.nodeName (use a nodeSelector instead)");
    }
    String current = spec.getSchedulerName();
    if (current != null
        && !current.isEmpty()
        && !current.equals(DEFAULT_SCHEDULER)
        && !current.equals(schedulerName)
        && !partitionSchedulers.contains(current)) {
      reasons.add(
          "spec.schedulerName is \""
              + current
              + "\", but only "
              + shareGpuSchedulers()
              + " assigns GPUs to pods requesting sharegpu.io resources; set it to \""
              + schedulerName
              + "\" or leave it empty");
    }
  }

  /** The scheduler names that assign GPUs, quoted, for the denial. */
  private String shareGpuSchedulers() {
    if (partitionSchedulers.isEmpty()) {
      return "\"" + schedulerName + "\"";
    }
    List<String> names = new ArrayList<>(new TreeSet<>(partitionSchedulers));
    names.add(0, schedulerName);
    return names.stream().map(n -> "\"" + n + "\"").collect(Collectors.joining(", "));
  }

  private static void checkAnnotations(Map<String, String> annotations, List<String> reasons) {
    Set<String> forged = new TreeSet<>();
    for (String key : annotations.keySet()) {
      for (String base : ASSIGNMENT_KEYS) {
        if (key.equals(base) || key.startsWith(base + ".")) {
          forged.add(key);
        }
      }
    }
    for (String key : forged) {
      reasons.add(
          "annotation "
              + key
              + " is written by the ShareGPU scheduler when it binds the pod; remove it");
    }
  }

  private static void checkMpsPipe(PodSpec spec, Set<String> gpuContainers, List<String> reasons) {
    Volume wanted = ShareGpuEnv.mpsPipeVolume();
    for (Volume volume : nonNull(spec.getVolumes())) {
      if (ShareGpuEnv.MPS_PIPE_VOLUME.equals(volume.getName()) && !sameHostPath(wanted, volume)) {
        reasons.add(
            "volume \""
                + ShareGpuEnv.MPS_PIPE_VOLUME
                + "\" is reserved for the MPS pipe (hostPath "
                + ShareGpuAnnotations.MPS_PIPE_DIRECTORY
                + "); rename your volume");
      }
    }
    for (Container container : nonNull(spec.getContainers())) {
      if (!gpuContainers.contains(container.getName())) {
        continue;
      }
      for (VolumeMount mount : nonNull(container.getVolumeMounts())) {
        boolean ourName = ShareGpuEnv.MPS_PIPE_VOLUME.equals(mount.getName());
        boolean ourPath = ShareGpuAnnotations.MPS_PIPE_DIRECTORY.equals(mount.getMountPath());
        if (ourName != ourPath) {
          reasons.add(
              "container \""
                  + container.getName()
                  + "\" mounts \""
                  + mount.getName()
                  + "\" at "
                  + mount.getMountPath()
                  + ": ShareGPU reserves "
                  + ShareGpuAnnotations.MPS_PIPE_DIRECTORY
                  + " and the volume name "
                  + ShareGpuEnv.MPS_PIPE_VOLUME
                  + " for the MPS pipe");
        }
      }
    }
  }

  /** Returns a reason for each sharegpu.io resource other than gpu-milli and gpu-memory. */
  private static List<String> unknownResources(PodSpec spec) {
    List<Container> all = new ArrayList<>(nonNull(spec.getInitContainers()));
    all.addAll(nonNull(spec.getContainers()));
    List<String> reasons = new ArrayList<>();
    for (Container container : all) {
      Set<String> keys = new TreeSet<>();
      ResourceRequirements resources = container.getResources();
      if (resources != null) {
        keys.addAll(resourceNames(resources.getLimits()));
        keys.addAll(resourceNames(resources.getRequests()));
      }
      for (String key : keys) {
        if (key.startsWith(ShareGpuResources.PREFIX)
            && !key.equals(ShareGpuResources.GPU_MILLI)
            && !key.equals(ShareGpuResources.GPU_MEMORY)) {
          reasons.add(
              "container \""
                  + container.getName()
                  + "\": unknown resource "
                  + key
                  + " (ShareGPU offers "
                  + ShareGpuResources.GPU_MILLI
                  + " and "
                  + ShareGpuResources.GPU_MEMORY
                  + ")");
        }
      }
    }
    return reasons;
  }

  private static Set<String> resourceNames(@Nullable Map<String, Quantity> resources) {
    return resources == null ? Set.of() : resources.keySet();
  }

  /** Returns whether a variable is one that only ShareGPU may set. */
  static boolean isReserved(String name) {
    return name.equals(ShareGpuEnv.NVIDIA_VISIBLE_DEVICES) || name.startsWith(MPS_PREFIX);
  }

  private static boolean sameEnv(EnvVar wanted, EnvVar actual) {
    if (!Objects.equals(wanted.getName(), actual.getName())) {
      return false;
    }
    if (wanted.getValueFrom() == null) {
      return actual.getValueFrom() == null && Objects.equals(wanted.getValue(), actual.getValue());
    }
    if (actual.getValue() != null && !actual.getValue().isEmpty()) {
      return false;
    }
    var from = actual.getValueFrom();
    if (from == null
        || from.getFieldRef() == null
        || from.getConfigMapKeyRef() != null
        || from.getSecretKeyRef() != null
        || from.getResourceFieldRef() != null
        || from.getFileKeyRef() != null) {
      return false;
    }
    var wantedRef = wanted.getValueFrom().getFieldRef();
    var actualRef = from.getFieldRef();
    String apiVersion = actualRef.getApiVersion() == null ? "v1" : actualRef.getApiVersion();
    return Objects.equals(wantedRef.getFieldPath(), actualRef.getFieldPath())
        && Objects.equals(wantedRef.getApiVersion(), apiVersion);
  }

  private static boolean sameHostPath(Volume wanted, Volume actual) {
    HostPathVolumeSource a = actual.getHostPath();
    HostPathVolumeSource w = wanted.getHostPath();
    return a != null
        && w != null
        && Objects.equals(w.getPath(), a.getPath())
        && (a.getType() == null || Objects.equals(w.getType(), a.getType()))
        && actual.getEmptyDir() == null
        && actual.getConfigMap() == null
        && actual.getSecret() == null
        && actual.getPersistentVolumeClaim() == null;
  }

  private static boolean isEmpty(@Nullable List<?> list) {
    return list == null || list.isEmpty();
  }

  private static <T> List<T> nonNull(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }
}
