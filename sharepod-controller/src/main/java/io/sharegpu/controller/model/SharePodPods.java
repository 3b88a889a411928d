package io.sharegpu.controller.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuEnv;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.api.request.GpuRequestRules;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import io.sharegpu.api.sharepod.SharePod;
import io.sharegpu.api.sharepod.SharePodGpu;
import io.sharegpu.api.sharepod.SharePodSpec;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Computes the one pod a SharePod should have. Pure: the same SharePod and settings always give the
 * same pod, so the controller can recreate it after a restart or a deletion.
 *
 * <p>The pod is the template with, on its <b>first container</b> (the GPU container; others are
 * sidecars without GPU): limits {@code sharegpu.io/gpu-milli} (request x 1000) and {@code
 * sharegpu.io/gpu-memory} (MiB), the downward-API environment of {@link ShareGpuEnv} and the MPS
 * pipe mount. The pod is named after the SharePod, labelled {@code sharegpu.io/sharepod=<name>},
 * controlled by the SharePod (owner reference with {@code blockOwnerDeletion}), scheduled by the
 * ShareGPU scheduler profile and annotated with {@code sharegpu.io/gpu-limit-milli} and {@code
 * sharegpu.io/gpu-models}. For example {@code request: "0.25", limit: "0.5", memory: 10Gi} gives
 * gpu-milli 250, gpu-memory 10240 and gpu-limit-milli 500.
 *
 * <p>A SharePod that cannot become a correct pod gives {@link DesiredPod.Invalid} with every error,
 * never a partial pod.
 */
public final class SharePodPods {

  private static final BigDecimal THOUSAND = BigDecimal.valueOf(GpuRequestRules.WHOLE_GPU_MILLI);
  private static final BigDecimal MIB = BigDecimal.valueOf(1024L * 1024L);
  private static final int LABEL_VALUE_MAX = 63;

  /** Template annotations a user may set; every other sharegpu.io/ annotation is ShareGPU's own. */
  private static final Set<String> USER_ANNOTATIONS =
      Set.of(ShareGpuAnnotations.GPU_UUIDS, ShareGpuAnnotations.GPU_EXCLUDE_UUIDS);

  private SharePodPods() {}

  /** Returns the pod for {@code sharePod}, or every reason it cannot have one. */
  public static DesiredPod desiredPod(SharePod sharePod, PodSettings settings) {
    List<String> errors = new ArrayList<>();
    ObjectMeta meta = sharePod.getMetadata();
    String name = meta == null || meta.getName() == null ? "" : meta.getName();
    if (name.length() > LABEL_VALUE_MAX) {
      errors.add(
          "metadata.name: a SharePod name may have at most "
              + LABEL_VALUE_MAX
              + " characters (it becomes the value of the "
              + ShareGpuAnnotations.SHAREPOD_LABEL
              + " label), got "
              + name.length());
    }
    SharePodSpec spec = sharePod.getSpec();
    SharePodGpu gpu = spec == null ? null : spec.getGpu();
    PodTemplateSpec template = spec == null ? null : spec.getTemplate();
    GpuRequest request = null;
    if (gpu == null) {
      errors.add("spec.gpu is required");
    } else {
      request = parseGpu(gpu, errors);
    }
    if (template == null || template.getSpec() == null) {
      errors.add("spec.template.spec is required");
    } else {
      checkTemplate(template, settings, errors);
    }
    if (!errors.isEmpty() || request == null || template == null) {
      return new DesiredPod.Invalid(errors);
    }

    Pod pod = buildPod(sharePod, name, request, template, settings);
    ParsedRequest parsed = PodGpuRequestParser.parse(pod);
    if (parsed instanceof ParsedRequest.Invalid invalid) {
      return new DesiredPod.Invalid(invalid.errors());
    }
    if (!(parsed instanceof ParsedRequest.Valid)) {
      throw new IllegalStateException("the pod of SharePod " + name + " requests no GPU");
    }
    return new DesiredPod.Valid(pod, request);
  }

  /**
   * Returns why {@code actual}, the SharePod's existing pod, asks for other GPU resources than
   * {@code desired} (the pod the SharePod would get now), or empty. Pod resources are immutable, so
   * a changed {@code spec.gpu} only applies to the next pod; the status says so. For example a
   * request raised from 0.25 to 0.5 gives "spec.gpu changed after pod p was created (gpu-milli 250
   * -> 500); it applies to the next pod".
   */
  public static Optional<String> gpuDrift(Pod actual, Pod desired) {
    List<String> changes = new ArrayList<>();
    Map<String, Quantity> have = firstLimits(actual);
    Map<String, Quantity> want = firstLimits(desired);
    for (String resource : List.of(ShareGpuResources.GPU_MILLI, ShareGpuResources.GPU_MEMORY)) {
      // compared as numbers: the API server writes 2000 back as "2k"
      String a = have.containsKey(resource) ? plain(have.get(resource)) : "none";
      String b = want.containsKey(resource) ? plain(want.get(resource)) : "none";
      if (!a.equals(b)) {
        changes.add(resource.substring(ShareGpuResources.PREFIX.length()) + " " + a + " -> " + b);
      }
    }
    for (String key :
        List.of(ShareGpuAnnotations.GPU_LIMIT_MILLI, ShareGpuAnnotations.GPU_MODELS)) {
      String a = nonNull(actual.getMetadata().getAnnotations()).getOrDefault(key, "none");
      String b = nonNull(desired.getMetadata().getAnnotations()).getOrDefault(key, "none");
      if (!a.equals(b)) {
        changes.add(key.substring(ShareGpuResources.PREFIX.length()) + " " + a + " -> " + b);
      }
    }
    if (changes.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "spec.gpu changed after pod "
            + actual.getMetadata().getName()
            + " was created ("
            + String.join(", ", changes)
            + "); it applies to the next pod");
  }

  private static String plain(Quantity quantity) {
    BigDecimal value = numeric(quantity);
    return value == null ? quoted(quantity) : value.stripTrailingZeros().toPlainString();
  }

  private static Map<String, Quantity> firstLimits(Pod pod) {
    if (pod.getSpec() == null || nonNull(pod.getSpec().getContainers()).isEmpty()) {
      return Map.of();
    }
    Container first = pod.getSpec().getContainers().get(0);
    return first.getResources() == null ? Map.of() : nonNull(first.getResources().getLimits());
  }

  /**
   * Returns the GPU request of {@code gpu}, adding an error per wrong field. Quantities are in
   * GPUs: {@code 0.25} and {@code 250m} are a quarter of a GPU. A plain memory number is MiB (as
   * for the pod resource), a number with a unit is bytes, rounded up to MiB: {@code 10Gi} is 10240.
   */
  static @Nullable GpuRequest parseGpu(SharePodGpu gpu, List<String> errors) {
    int before = errors.size();
    Integer compute =
        gpu.getRequest() == null ? null : milli("spec.gpu.request", gpu.getRequest(), errors);
    if (gpu.getRequest() == null) {
      errors.add("spec.gpu.request is required, e.g. \"0.25\" (a quarter of one GPU) or \"2\"");
    }
    if (compute != null && !GpuRequestRules.isValidCompute(compute)) {
      errors.add(
          "spec.gpu.request "
              + quoted(gpu.getRequest())
              + " is above 1 but not a whole number: a request is either a share of one GPU"
              + " (below 1) or whole GPUs (1, 2, ...)");
    }
    int limit = 0;
    if (gpu.getLimit() != null) {
      Integer parsed = milli("spec.gpu.limit", gpu.getLimit(), errors);
      if (parsed != null && compute != null) {
        if (parsed < compute) {
          errors.add(
              "spec.gpu.limit "
                  + quoted(gpu.getLimit())
                  + " is below spec.gpu.request "
                  + quoted(gpu.getRequest()));
        } else if (!GpuRequestRules.isWholeGpus(compute)) {
          // whole GPUs run uncapped: a limit at or above their request says nothing more
          if (GpuRequestRules.limitProblem(compute, parsed).isPresent()) {
            errors.add(
                "spec.gpu.limit "
                    + quoted(gpu.getLimit())
                    + " is above 1: a share can use at most one whole GPU");
          } else {
            limit = parsed;
          }
        }
      }
    }
    long memoryMib = gpu.getMemory() == null ? 0 : memoryMib(gpu.getMemory(), errors);
    List<String> models = new ArrayList<>();
    List<String> rawModels = gpu.getModels();
    for (int i = 0; i < rawModels.size(); i++) {
      String model = rawModels.get(i) == null ? "" : rawModels.get(i).trim();
      if (!GpuRequestRules.isModel(model)) {
        errors.add(
            "spec.gpu.models["
                + i
                + "] \""
                + rawModels.get(i)
                + "\": a model name may contain only letters, digits, '-', '_' and '.'");
      } else {
        models.add(model);
      }
    }
    if (errors.size() > before || compute == null) {
      return null;
    }
    return new GpuRequest(compute, limit, memoryMib, models);
  }

  private static @Nullable Integer milli(String field, Quantity quantity, List<String> errors) {
    BigDecimal gpus = numeric(quantity);
    if (gpus == null) {
      errors.add(
          field + " " + quoted(quantity) + " is not a quantity; write e.g. \"0.25\" or 250m");
      return null;
    }
    if (gpus.signum() <= 0) {
      errors.add(field + " " + quoted(quantity) + " must be above 0");
      return null;
    }
    BigDecimal milli = gpus.multiply(THOUSAND);
    if (milli.stripTrailingZeros().scale() > 0) {
      errors.add(
          field + " " + quoted(quantity) + " is finer than a thousandth of a GPU (1m, or 0.001)");
      return null;
    }
    if (milli.compareTo(BigDecimal.valueOf(1_000_000)) > 0) {
      errors.add(field + " " + quoted(quantity) + " is more than 1000 GPUs");
      return null;
    }
    return milli.intValueExact();
  }

  private static long memoryMib(Quantity quantity, List<String> errors) {
    String field = "spec.gpu.memory";
    BigDecimal value = numeric(quantity);
    String format = quantity.getFormat() == null ? "" : quantity.getFormat();
    boolean plainNumber = format.isEmpty() || format.startsWith("e") || format.startsWith("E");
    if (value == null
        || format.equals("m")
        || (plainNumber && value.stripTrailingZeros().scale() > 0)) {
      errors.add(
          field
              + " "
              + quoted(quantity)
              + " must be a quantity such as 10Gi or a whole number of MiB");
      return 0;
    }
    if (value.signum() <= 0) {
      errors.add(field + " " + quoted(quantity) + " must be above 0");
      return 0;
    }
    BigDecimal mib = plainNumber ? value : value.divide(MIB, 0, RoundingMode.CEILING);
    if (mib.compareTo(BigDecimal.valueOf(1L << 40)) > 0) {
      errors.add(field + " " + quoted(quantity) + " is too large");
      return 0;
    }
    return mib.longValueExact();
  }

  private static void checkTemplate(
      PodTemplateSpec template, PodSettings settings, List<String> errors) {
    ObjectMeta meta = template.getMetadata();
    if (meta != null) {
      for (String key : nonNull(meta.getAnnotations()).keySet()) {
        if (key.startsWith(ShareGpuResources.PREFIX) && !USER_ANNOTATIONS.contains(key)) {
          errors.add(
              "spec.template.metadata.annotations: "
                  + key
                  + " is set by ShareGPU"
                  + (key.equals(ShareGpuAnnotations.GPU_LIMIT_MILLI)
                      ? " from spec.gpu.limit"
                      : key.equals(ShareGpuAnnotations.GPU_MODELS) ? " from spec.gpu.models" : "")
                  + "; remove it from the template");
        }
      }
      if (nonNull(meta.getLabels()).containsKey(ShareGpuAnnotations.SHAREPOD_LABEL)) {
        errors.add(
            "spec.template.metadata.labels: "
                + ShareGpuAnnotations.SHAREPOD_LABEL
                + " is set by the SharePod controller; remove it from the template");
      }
    }
    PodSpec spec = template.getSpec();
    if (spec.getNodeName() != null && !spec.getNodeName().isEmpty()) {
      errors.add(
          "spec.template.spec.nodeName \""
              + spec.getNodeName()
              + "\" would bypass the ShareGPU scheduler, which picks the node and the GPUs;"
              + " use a nodeSelector or affinity instead");
    }
    String scheduler = spec.getSchedulerName();
    if (scheduler != null && !scheduler.isEmpty() && !scheduler.equals(settings.schedulerName())) {
      errors.add(
          "spec.template.spec.schedulerName \""
              + scheduler
              + "\": SharePod pods are scheduled by \""
              + settings.schedulerName()
              + "\"; remove the field");
    }
    List<Container> containers = nonNull(spec.getContainers());
    if (containers.isEmpty()) {
      errors.add("spec.template.spec.containers must list at least one container");
    }
    checkContainers("containers", containers, settings, errors);
    checkContainers("initContainers", nonNull(spec.getInitContainers()), settings, errors);
    for (Volume volume : nonNull(spec.getVolumes())) {
      if (ShareGpuEnv.MPS_PIPE_VOLUME.equals(volume.getName())) {
        errors.add(
            "spec.template.spec.volumes: the volume name \""
                + ShareGpuEnv.MPS_PIPE_VOLUME
                + "\" is reserved for the MPS pipe directory");
      }
    }
  }

  private static void checkContainers(
      String field, List<Container> containers, PodSettings settings, List<String> errors) {
    List<String> reserved = ShareGpuEnv.reservedEnvNames();
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      String prefix = "spec.template.spec." + field + "[" + i + "] (\"" + c.getName() + "\"): ";
      for (EnvVar env : nonNull(c.getEnv())) {
        if (reserved.contains(env.getName())) {
          errors.add(
              prefix
                  + "env "
                  + env.getName()
                  + " is set by ShareGPU from the GPUs the scheduler assigns; remove it");
        }
      }
      ResourceRequirements resources = c.getResources();
      if (resources != null) {
        for (String key : concat(resources.getLimits(), resources.getRequests())) {
          if (key.startsWith(ShareGpuResources.PREFIX)) {
            errors.add(
                prefix + "resource " + key + " comes from spec.gpu; remove it from the template");
          }
        }
      }
      for (VolumeMount mount : nonNull(c.getVolumeMounts())) {
        if (settings.mpsPipeDirectory().equals(mount.getMountPath())) {
          errors.add(
              prefix
                  + "the mount path "
                  + mount.getMountPath()
                  + " is reserved for the MPS pipe directory");
        }
      }
    }
  }

  private static Pod buildPod(
      SharePod sharePod,
      String name,
      GpuRequest request,
      PodTemplateSpec template,
      PodSettings settings) {
    ObjectMeta templateMeta =
        template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    Map<String, String> labels = new LinkedHashMap<>(nonNull(templateMeta.getLabels()));
    labels.put(ShareGpuAnnotations.SHAREPOD_LABEL, name);
    Map<String, String> annotations = new LinkedHashMap<>(nonNull(templateMeta.getAnnotations()));
    if (request.limitMilli() > 0) {
      annotations.put(ShareGpuAnnotations.GPU_LIMIT_MILLI, Integer.toString(request.limitMilli()));
    }
    if (!request.models().isEmpty()) {
      annotations.put(ShareGpuAnnotations.GPU_MODELS, String.join(",", request.models()));
    }

    PodSpec templateSpec = template.getSpec();
    Container first = templateSpec.getContainers().get(0);
    Map<String, Quantity> limits =
        new LinkedHashMap<>(
            first.getResources() == null ? Map.of() : nonNull(first.getResources().getLimits()));
    limits.put(ShareGpuResources.GPU_MILLI, new Quantity(Integer.toString(request.computeMilli())));
    if (request.memoryMib() > 0) {
      limits.put(ShareGpuResources.GPU_MEMORY, new Quantity(Long.toString(request.memoryMib())));
    }
    Container gpuContainer =
        new ContainerBuilder(first)
            .addAllToEnv(env(first.getName(), settings))
            .addToVolumeMounts(mount(settings))
            .editOrNewResources()
            .withLimits(limits)
            .endResources()
            .build();
    List<Container> containers = new ArrayList<>();
    containers.add(gpuContainer);
    for (Container sidecar :
        templateSpec.getContainers().subList(1, templateSpec.getContainers().size())) {
      containers.add(new ContainerBuilder(sidecar).build());
    }
    PodSpec spec =
        new PodSpecBuilder(templateSpec)
            .withContainers(containers)
            .addToVolumes(volume(settings))
            .withSchedulerName(settings.schedulerName())
            .build();

    ObjectMeta owner = sharePod.getMetadata();
    OwnerReference reference =
        new OwnerReferenceBuilder()
            .withApiVersion(SharePod.GROUP + "/" + SharePod.VERSION)
            .withKind("SharePod")
            .withName(name)
            .withUid(owner.getUid())
            .withController(true)
            .withBlockOwnerDeletion(true)
            .build();
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(owner.getNamespace())
        .withLabels(labels)
        .withAnnotations(annotations)
        .withOwnerReferences(reference)
        .endMetadata()
        .withSpec(spec)
        .build();
  }

  /** Returns ShareGpuEnv's variables, with the pipe directory moved if it is not the default. */
  private static List<EnvVar> env(String container, PodSettings settings) {
    List<EnvVar> env = new ArrayList<>();
    for (EnvVar var : ShareGpuEnv.downwardApiEnv(container)) {
      if (var.getName().equals(ShareGpuEnv.CUDA_MPS_PIPE_DIRECTORY)
          && !settings.mpsPipeDirectory().equals(ShareGpuAnnotations.MPS_PIPE_DIRECTORY)) {
        env.add(new EnvVar(var.getName(), settings.mpsPipeDirectory(), null));
      } else {
        env.add(var);
      }
    }
    return env;
  }

  private static Volume volume(PodSettings settings) {
    return new VolumeBuilder(ShareGpuEnv.mpsPipeVolume())
        .editHostPath()
        .withPath(settings.mpsPipeDirectory())
        .endHostPath()
        .build();
  }

  private static VolumeMount mount(PodSettings settings) {
    return new VolumeMountBuilder(ShareGpuEnv.mpsPipeMount())
        .withMountPath(settings.mpsPipeDirectory())
        .build();
  }

  private static @Nullable BigDecimal numeric(Quantity quantity) {
    try {
      return quantity.getNumericalAmount();
    } catch (RuntimeException e) {
      return null; // not a Kubernetes quantity; the caller reports the raw text
    }
  }

  private static String quoted(@Nullable Quantity quantity) {
    if (quantity == null) {
      return "\"\"";
    }
    String amount = quantity.getAmount() == null ? "" : quantity.getAmount();
    String format = quantity.getFormat() == null ? "" : quantity.getFormat();
    return "\"" + amount + format + "\"";
  }

  private static Set<String> concat(
      @Nullable Map<String, Quantity> a, @Nullable Map<String, Quantity> b) {
    Set<String> keys = new LinkedHashSet<>(nonNull(a).keySet());
    keys.addAll(nonNull(b).keySet());
    return keys;
  }

  private static <K, V> Map<K, V> nonNull(@Nullable Map<K, V> map) {
    return map == null ? Map.of() : map;
  }

  private static <T> List<T> nonNull(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }
}
