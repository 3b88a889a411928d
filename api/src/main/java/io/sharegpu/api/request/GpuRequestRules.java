package io.sharegpu.api.request;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules of a GPU request, in one place for every reader of requests: the pod request parser
 * ({@link PodGpuRequestParser}, which the extender and the admission webhook use), the SharePod
 * controller ({@code spec.gpu}), the webhook's translations of other schedulers' spellings and the
 * simulator's traces. Plain Java, so that modules without the Kubernetes model can use it too.
 *
 * <ul>
 *   <li>Compute is in thousandths of a GPU: 1..999 is a share of one GPU; 1000 and above must be a
 *       multiple of 1000, that many whole GPUs ({@link #computeProblem}).
 *   <li>A share's limit lies between its request and one whole GPU; whole GPUs have no limit other
 *       than 1000 ({@link #limitProblem}).
 *   <li>A GPU model is letters, digits, {@code -}, {@code _} and {@code .} ({@link #isModel}); a
 *       GPU UUID letters, digits, {@code -}, {@code _} and {@code /} ({@link #isGpuUuid}).
 * </ul>
 *
 * <p>The problems are phrases to follow the name of the field and its value, e.g. {@code container
 * "main": sharegpu.io/gpu-milli "1500"} + {@code " is >= 1000 but not a multiple of 1000 (whole
 * GPUs are 1000, 2000, ...)"}; callers that speak in other units (the SharePod's GPUs) keep their
 * own words and use the predicates.
 */
public final class GpuRequestRules {
  /** Thousandths of a GPU in one whole GPU; also the highest limit of a share. */
  public static final int WHOLE_GPU_MILLI = 1000;

  /** What {@link #isModel} accepts, in words. */
  public static final String MODEL_SYNTAX =
      "model names may contain only letters, digits, '-', '_' and '.'";

  /** What {@link #isGpuUuid} accepts, in words. */
  public static final String UUID_SYNTAX =
      "GPU UUIDs may contain only letters, digits, '-', '_' and '/'";

  private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9._-]+");
  private static final Pattern UUID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9/_-]*");

  private GpuRequestRules() {}

  /** True for 1000, 2000, ...: whole GPUs, held exclusively. */
  public static boolean isWholeGpus(int computeMilli) {
    return computeMilli >= WHOLE_GPU_MILLI;
  }

  /** True when {@code computeMilli} is a valid request: 1..999, or a multiple of 1000. */
  public static boolean isValidCompute(int computeMilli) {
    return computeProblem(computeMilli).isEmpty();
  }

  /**
   * Returns why {@code computeMilli} is not a valid request, if it is not: {@code 1500} gives
   * {@code " is >= 1000 but not a multiple of 1000 (whole GPUs are 1000, 2000, ...)"}.
   */
  public static Optional<String> computeProblem(int computeMilli) {
    if (computeMilli <= 0) {
      return Optional.of(" must be > 0");
    }
    if (isWholeGpus(computeMilli) && computeMilli % WHOLE_GPU_MILLI != 0) {
      return Optional.of(" is >= 1000 but not a multiple of 1000 (whole GPUs are 1000, 2000, ...)");
    }
    return Optional.empty();
  }

  /** True when a share's limit may be {@code limitMilli}: at most one whole GPU. */
  public static boolean isWithinOneGpu(int limitMilli) {
    return limitMilli > 0 && limitMilli <= WHOLE_GPU_MILLI;
  }

  /**
   * Returns why {@code limitMilli} is not a valid limit for a request of {@code computeMilli}, if
   * it is not: a share's limit lies in request..1000 ({@code 200} for a request of 250 gives {@code
   * " is below the request 250"}); whole GPUs take only 1000.
   */
  public static Optional<String> limitProblem(int computeMilli, int limitMilli) {
    if (isWholeGpus(computeMilli)) {
      return limitMilli == WHOLE_GPU_MILLI
          ? Optional.empty()
          : Optional.of(" must be 1000 for whole GPUs");
    }
    if (limitMilli < computeMilli) {
      return Optional.of(" is below the request " + computeMilli);
    }
    if (!isWithinOneGpu(limitMilli)) {
      return Optional.of(" is above 1000: a share can use at most one whole GPU");
    }
    return Optional.empty();
  }

  /** True for a GPU model name as the pod may write it, e.g. {@code H100} or {@code A100-SXM4}. */
  public static boolean isModel(String model) {
    return MODEL.matcher(model).matches();
  }

  /** True for a GPU UUID as the pod may write it, e.g. {@code GPU-e4aea6a9-1b46}. */
  public static boolean isGpuUuid(String uuid) {
    return UUID.matcher(uuid).matches();
  }
}
