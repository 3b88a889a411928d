package io.sharegpu.api.request;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the GPU request of a pod from its containers' resources and its annotations.
 *
 * <p>Each container's {@code resources.limits} (falling back to {@code requests}) is read for
 * {@link ShareGpuResources#GPU_MILLI} and {@link ShareGpuResources#GPU_MEMORY}; containers without
 * GPU_MILLI are not GPU containers. For example limits {@code gpu-milli: "250", gpu-memory: "10Gi"}
 * with annotation {@code gpu-limit-milli: "500"} give {@code ContainerGpuRequest("main", 250,
 * 10240, 500)}. Every error names the container (or annotation) and the offending value; all errors
 * are reported, not only the first.
 */
public final class PodGpuRequestParser {

  private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");
  private static final BigDecimal MIB = BigDecimal.valueOf(1024L * 1024L);
  private static final int WHOLE = GpuRequestRules.WHOLE_GPU_MILLI;

  private PodGpuRequestParser() {}

  /** Parses a pod's spec and annotations. */
  public static ParsedRequest parse(Pod pod) {
    ObjectMeta meta = pod.getMetadata();
    Map<String, String> annotations = meta == null ? null : meta.getAnnotations();
    PodSpec spec = pod.getSpec();
    return parse(spec == null ? new PodSpec() : spec, annotations == null ? Map.of() : annotations);
  }

  /** Parses a pod spec with the pod's annotations (for SharePod templates and the webhook). */
  public static ParsedRequest parse(PodSpec spec, Map<String, String> annotations) {
    List<String> errors = new ArrayList<>();
    for (Container init : nonNull(spec.getInitContainers())) {
      if (requests(init, ShareGpuResources.GPU_MILLI) != null
          || requests(init, ShareGpuResources.GPU_MEMORY) != null) {
        errors.add(
            "init container \""
                + init.getName()
                + "\": init containers cannot request sharegpu.io resources");
      }
    }

    List<GpuContainer> gpuContainers = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Container container : nonNull(spec.getContainers())) {
      String name = container.getName() == null ? "" : container.getName();
      Quantity milli = requests(container, ShareGpuResources.GPU_MILLI);
      Quantity memory = requests(container, ShareGpuResources.GPU_MEMORY);
      if (milli == null) {
        if (memory != null) {
          errors.add(
              containerPrefix(name)
                  + ShareGpuResources.GPU_MEMORY
                  + " "
                  + quoted(memory)
                  + " needs "
                  + ShareGpuResources.GPU_MILLI
                  + " in the same container");
        }
        continue;
      }
      int errorsBefore = errors.size();
      checkName(name, names, errors);
      int computeMilli = parseMilli(name, milli, errors);
      long memoryMib = memory == null ? 0 : parseMemory(name, memory, errors);
      if (errors.size() == errorsBefore) {
        gpuContainers.add(new GpuContainer(name, computeMilli, memoryMib));
      }
    }
    if (gpuContainers.isEmpty() && errors.isEmpty()) {
      return new ParsedRequest.NoGpu();
    }

    boolean anyShare =
        gpuContainers.stream().anyMatch(c -> !GpuRequestRules.isWholeGpus(c.computeMilli));
    Integer limit =
        anyShare ? parseLimit(annotations.get(ShareGpuAnnotations.GPU_LIMIT_MILLI), errors) : null;
    List<String> models =
        parseList(
            ShareGpuAnnotations.GPU_MODELS,
            annotations.get(ShareGpuAnnotations.GPU_MODELS),
            GpuRequestRules::isModel,
            GpuRequestRules.MODEL_SYNTAX,
            errors);
    List<String> pinned =
        parseList(
            ShareGpuAnnotations.GPU_UUIDS,
            annotations.get(ShareGpuAnnotations.GPU_UUIDS),
            GpuRequestRules::isGpuUuid,
            GpuRequestRules.UUID_SYNTAX,
            errors);
    List<String> excluded =
        parseList(
            ShareGpuAnnotations.GPU_EXCLUDE_UUIDS,
            annotations.get(ShareGpuAnnotations.GPU_EXCLUDE_UUIDS),
            GpuRequestRules::isGpuUuid,
            GpuRequestRules.UUID_SYNTAX,
            errors);

    List<ContainerGpuRequest> containers = new ArrayList<>();
    for (GpuContainer c : gpuContainers) {
      if (GpuRequestRules.isWholeGpus(c.computeMilli)) {
        containers.add(new ContainerGpuRequest(c.name, c.computeMilli, c.memoryMib, WHOLE));
      } else if (limit == null) {
        containers.add(ContainerGpuRequest.share(c.name, c.computeMilli, c.memoryMib));
      } else if (GpuRequestRules.limitProblem(c.computeMilli, limit).isPresent()) {
        errors.add(
            ShareGpuAnnotations.GPU_LIMIT_MILLI
                + " \""
                + limit
                + "\" is below the request "
                + c.computeMilli
                + " of container \""
                + c.name
                + "\"");
      } else {
        containers.add(new ContainerGpuRequest(c.name, c.computeMilli, c.memoryMib, limit));
      }
    }
    if (!errors.isEmpty()) {
      return new ParsedRequest.Invalid(errors);
    }
    return new ParsedRequest.Valid(new PodGpuRequest(containers, models, pinned, excluded));
  }

  /**
   * Returns why the request cannot fit on any GPU of the cluster, if it cannot: a container whose
   * memory per GPU (its memory divided over its GPUs, rounded up) exceeds the largest GPU. For
   * example 200000 MiB on one share against an H200 (143771 MiB) does not fit.
   */
  public static Optional<String> checkMemoryFits(PodGpuRequest r, long largestGpuMemoryMib) {
    List<String> reasons = new ArrayList<>();
    for (ContainerGpuRequest c : r.containers()) {
      long perGpu = (c.memoryMib() + c.gpuCount() - 1) / c.gpuCount();
      if (perGpu > largestGpuMemoryMib) {
        reasons.add(
            containerPrefix(c.container())
                + ShareGpuResources.GPU_MEMORY
                + " "
                + c.memoryMib()
                + " MiB"
                + (c.gpuCount() > 1 ? " (" + perGpu + " MiB per GPU)" : "")
                + " is more than the largest GPU in the cluster has ("
                + largestGpuMemoryMib
                + " MiB)");
      }
    }
    return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
  }

  private static void checkName(String name, Set<String> names, List<String> errors) {
    if (name.isEmpty()) {
      errors.add("a container requesting " + ShareGpuResources.GPU_MILLI + " needs a name");
    } else if (!names.add(name)) {
      errors.add(containerPrefix(name) + "appears more than once");
    } else if (name.length() > ShareGpuAnnotations.MAX_GPU_CONTAINER_NAME_LENGTH) {
      errors.add(
          containerPrefix(name)
              + "the name of a GPU container may have at most "
              + ShareGpuAnnotations.MAX_GPU_CONTAINER_NAME_LENGTH
              + " characters (it becomes part of the assignment annotation keys), got "
              + name.length());
    }
  }

  private static int parseMilli(String name, Quantity quantity, List<String> errors) {
    String prefix = containerPrefix(name) + ShareGpuResources.GPU_MILLI;
    BigDecimal value = numeric(quantity);
    if (value == null || !isInteger(value)) {
      errors.add(prefix + " must be a positive integer, got " + quoted(quantity));
      return 0;
    }
    if (value.signum() <= 0) {
      errors.add(prefix + " must be > 0, got " + quoted(quantity));
      return 0;
    }
    if (value.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
      errors.add(prefix + " is too large, got " + quoted(quantity));
      return 0;
    }
    int milli = value.intValueExact();
    Optional<String> problem = GpuRequestRules.computeProblem(milli);
    if (problem.isPresent()) {
      errors.add(prefix + " " + quoted(quantity) + problem.get());
      return 0;
    }
    return milli;
  }

  /**
   * The value is a number of MiB, like the node capacity it is summed against: kube-scheduler,
   * kubelet and ResourceQuota compare the plain numbers. Decimal suffixes are accepted because the
   * API server stores "12000" as "12k"; binary suffixes ("10Gi") are refused, since their number is
   * bytes and would never fit any node's capacity in MiB.
   */
  private static long parseMemory(String name, Quantity quantity, List<String> errors) {
    String prefix = containerPrefix(name) + ShareGpuResources.GPU_MEMORY;
    String format = quantity.getFormat() == null ? "" : quantity.getFormat();
    if (format.endsWith("i")) {
      errors.add(
          prefix
              + " is a number of MiB (nodes advertise GPU memory in MiB), got "
              + quoted(quantity)
              + "; write it in MiB, e.g. \"10240\" for 10Gi");
      return 0;
    }
    BigDecimal value = numeric(quantity);
    if (value == null || !isInteger(value)) {
      errors.add(prefix + " must be a positive integer number of MiB, got " + quoted(quantity));
      return 0;
    }
    if (value.signum() <= 0) {
      errors.add(prefix + " must be > 0, got " + quoted(quantity));
      return 0;
    }
    if (value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      errors.add(prefix + " is too large, got " + quoted(quantity));
      return 0;
    }
    return value.longValueExact();
  }

  private static @Nullable Integer parseLimit(@Nullable String raw, List<String> errors) {
    if (raw == null) {
      return null;
    }
    String key = ShareGpuAnnotations.GPU_LIMIT_MILLI;
    String value = raw.trim();
    if (!INTEGER.matcher(value).matches()) {
      errors.add(key + " must be a positive integer, got \"" + raw + "\"");
      return null;
    }
    BigDecimal limit = new BigDecimal(value);
    if (limit.signum() <= 0) {
      errors.add(key + " must be > 0, got \"" + raw + "\"");
      return null;
    }
    if (limit.compareTo(BigDecimal.valueOf(WHOLE)) > 0
        || !GpuRequestRules.isWithinOneGpu(limit.intValueExact())) {
      errors.add(key + " \"" + raw + "\" is above 1000");
      return null;
    }
    return limit.intValueExact();
  }

  private static List<String> parseList(
      String key, @Nullable String raw, Predicate<String> item, String rule, List<String> errors) {
    if (raw == null || raw.isBlank()) {
      return List.of();
    }
    List<String> items = new ArrayList<>();
    for (String part : raw.split(",", -1)) {
      String trimmed = part.trim();
      if (!item.test(trimmed)) {
        errors.add(key + ": " + rule + ", got \"" + raw + "\"");
        return List.of();
      }
      items.add(trimmed);
    }
    return List.copyOf(items);
  }

  private static @Nullable Quantity requests(Container container, String resource) {
    ResourceRequirements resources = container.getResources();
    if (resources == null) {
      return null;
    }
    Quantity limit = resources.getLimits() == null ? null : resources.getLimits().get(resource);
    if (limit != null) {
      return limit;
    }
    return resources.getRequests() == null ? null : resources.getRequests().get(resource);
  }

  private static @Nullable BigDecimal numeric(Quantity quantity) {
    try {
      return quantity.getNumericalAmount();
    } catch (RuntimeException e) {
      return null; // not a Kubernetes quantity; the caller reports the raw text
    }
  }

  private static boolean isInteger(BigDecimal value) {
    return value.signum() == 0 || value.stripTrailingZeros().scale() <= 0;
  }

  private static String quoted(Quantity quantity) {
    String amount = quantity.getAmount() == null ? "" : quantity.getAmount();
    String format = quantity.getFormat() == null ? "" : quantity.getFormat();
    return "\"" + amount + format + "\"";
  }

  private static String containerPrefix(String name) {
    return "container \"" + name + "\": ";
  }

  private static <T> List<T> nonNull(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }

  private record GpuContainer(String name, int computeMilli, long memoryMib) {}
}
