package io.sharegpu.webhook.admission.spelling;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.sharegpu.api.ShareGpuAnnotations;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * KubeShare 1.x (NTHU-LSALAB/KubeShare) and 2.0: a pod-level request as strings, {@code
 * gpu_request} and {@code gpu_limit} in fractions of one GPU (request &lt;= limit &lt;= 1.0) and
 * {@code gpu_mem} in bytes (optional: default the request's fraction of the GPU memory). 1.x spells
 * them as annotations {@code kubeshare/...}; 2.0 as labels {@code sharedgpu/...}, where the request
 * may also be a whole number of GPUs (limit equal to it) and {@code sharedgpu/gpu_model} names the
 * model in the collector's dashed form. KubeShare gives the pod one (virtual) GPU, so the pod must
 * have a single app container. 1.x's {@code kubeshare/GPUID} and scheduling affinity annotations
 * have no ShareGPU equivalent and are refused; 2.0's {@code sharedgpu/priority} is ignored and
 * kept.
 */
public final class KubeShareSpelling implements Spelling {

  /** KubeShare 1.x: annotations. */
  static KubeShareSpelling v1() {
    return new KubeShareSpelling(Peer.KUBESHARE, "kubeshare/", false);
  }

  /** KubeShare 2.0: labels. */
  static KubeShareSpelling v2() {
    return new KubeShareSpelling(Peer.KUBESHARE2, "sharedgpu/", true);
  }

  private static final List<String> V1_UNSUPPORTED =
      List.of(
          "kubeshare/GPUID",
          "kubeshare/sched_affinity",
          "kubeshare/sched_anti-affinity",
          "kubeshare/sched_exclusion");

  private final Peer peer;
  private final String prefix;
  private final boolean labels;

  private KubeShareSpelling(Peer peer, String prefix, boolean labels) {
    this.peer = peer;
    this.prefix = prefix;
    this.labels = labels;
  }

  @Override
  public Peer peer() {
    return peer;
  }

  private Map<String, String> keys(Pod pod) {
    return labels ? PodKeys.labels(pod) : PodKeys.annotations(pod);
  }

  private String request() {
    return prefix + "gpu_request";
  }

  private String limit() {
    return prefix + "gpu_limit";
  }

  private String memory() {
    return prefix + "gpu_mem";
  }

  private String model() {
    return prefix + "gpu_model";
  }

  @Override
  public List<String> requestKeys(Pod pod) {
    List<String> found = new ArrayList<>();
    for (String key : List.of(request(), limit(), memory())) {
      if (keys(pod).containsKey(key)) {
        found.add(key);
      }
    }
    return found;
  }

  @Override
  public Translation translate(Pod pod) {
    Map<String, String> keys = keys(pod);
    String kind = labels ? "label " : "annotation ";
    List<String> errors = new ArrayList<>();
    if (!labels) {
      for (String key : V1_UNSUPPORTED) {
        if (keys.containsKey(key)) {
          errors.add(
              "annotation "
                  + key
                  + " (choosing or grouping KubeShare's virtual GPUs) has no ShareGPU equivalent;"
                  + " remove it (pin GPUs with "
                  + ShareGpuAnnotations.GPU_UUIDS
                  + ")");
        }
      }
    }
    if (labels && keys.containsKey(model())) {
      errors.add(
          "label "
              + model()
              + " \""
              + keys.get(model())
              + "\" names the model in KubeShare's dashed form, which does not match the GPU's "
              + "product name; remove it and set annotation "
              + ShareGpuAnnotations.GPU_MODELS
              + " (e.g. \"A100\")");
    }
    List<Container> containers = PodKeys.containers(pod);
    if (containers.size() != 1) {
      errors.add(
          "KubeShare gives the whole pod one GPU, but the pod has "
              + containers.size()
              + " containers; ShareGPU needs the GPU asked per container: write "
              + "sharegpu.io/gpu-milli on the container that uses it");
    }
    String requestText = keys.get(request());
    String limitText = keys.get(limit());
    if (requestText == null || limitText == null) {
      errors.add(
          kind
              + request()
              + " and "
              + limit()
              + " go together (KubeShare reads both); set the missing one");
      return new Translation.Refused(errors);
    }
    if (!labels && keys.get(memory()) == null) {
      errors.add(
          "annotation "
              + memory()
              + " goes with "
              + request()
              + " (KubeShare 1.x requires it); set the GPU memory in bytes");
    }
    BigDecimal request = PodKeys.decimal(request(), requestText, errors);
    BigDecimal cap = PodKeys.decimal(limit(), limitText, errors);
    Long memoryMib = memoryMib(keys.get(memory()), errors);
    if (request == null || cap == null) {
      return new Translation.Refused(errors);
    }
    Translation.Share share = null;
    Map<String, String> annotations = new LinkedHashMap<>();
    boolean whole = request.signum() > 0 && request.stripTrailingZeros().scale() <= 0;
    if (request.signum() <= 0) {
      errors.add(kind + request() + " \"" + requestText + "\" must be above 0");
    } else if (request.compareTo(BigDecimal.ONE) > 0 && (!labels || !whole)) {
      errors.add(
          kind
              + request()
              + " \""
              + requestText
              + "\" must be at most 1.0"
              + (labels ? ", or a whole number of GPUs" : " (KubeShare 1.x shares one GPU)"));
    } else if (whole) {
      if (cap.compareTo(request) != 0) {
        errors.add(
            kind
                + limit()
                + " \""
                + limitText
                + "\" must equal the whole-GPU request "
                + requestText);
      } else {
        share = new Translation.Share(request.intValueExact() * 1000, null);
      }
    } else if (cap.compareTo(request) < 0 || cap.compareTo(BigDecimal.ONE) > 0) {
      errors.add(
          kind
              + limit()
              + " \""
              + limitText
              + "\" must be between the request "
              + requestText
              + " and 1.0");
    } else {
      Integer milli = PodKeys.milli(request(), request, errors);
      Integer capMilli = PodKeys.milli(limit(), cap, errors);
      if (milli != null && capMilli != null) {
        share = new Translation.Share(milli, memoryMib);
        annotations.put(ShareGpuAnnotations.GPU_LIMIT_MILLI, capMilli.toString());
      }
    }
    if (!errors.isEmpty() || share == null) {
      return new Translation.Refused(
          errors.isEmpty() ? List.of(kind + request() + " cannot be translated") : errors);
    }
    Set<String> translated = new LinkedHashSet<>(requestKeys(pod));
    return new Translation.Translated(
        Map.of(PodKeys.name(containers.get(0)), share),
        annotations,
        Set.of(),
        labels ? Set.of() : translated,
        labels ? translated : Set.of());
  }

  private @Nullable Long memoryMib(@Nullable String bytes, List<String> errors) {
    if (bytes == null) {
      return null;
    }
    if (!bytes.matches("[0-9]{1,19}") || new BigInteger(bytes).signum() == 0) {
      errors.add(
          (labels ? "label " : "annotation ")
              + memory()
              + " \""
              + bytes
              + "\" must be a positive number of bytes");
      return null;
    }
    return PodKeys.bytesToMib(new BigInteger(bytes));
  }
}
