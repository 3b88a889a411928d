package io.sharegpu.webhook.admission;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.ShareGpuResources;
import io.sharegpu.webhook.admission.spelling.Peer;
import io.sharegpu.webhook.admission.spelling.Spelling;
import io.sharegpu.webhook.admission.spelling.Spellings;
import io.sharegpu.webhook.admission.spelling.Translation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Applies a peer's {@link Spelling} to a pod: finds which peers' request keys the pod carries,
 * refuses mixes, and rewrites the pod into ShareGPU's spelling together with the JSON Patch that
 * does the same. The peer's extended resources are removed (no device plugin serves them on a
 * ShareGPU node, so a pod keeping them would never schedule); the translated request annotations
 * and labels are removed too, and {@value #TRANSLATED_FROM} records the peer.
 */
final class SpellingTranslator {

  /** Set on a translated pod: the peer whose spelling it was written in. */
  static final String TRANSLATED_FROM = "sharegpu.io/translated-from";

  private static final List<String> OWN_ANNOTATIONS =
      List.of(
          ShareGpuAnnotations.GPU_LIMIT_MILLI,
          ShareGpuAnnotations.GPU_MODELS,
          ShareGpuAnnotations.GPU_UUIDS,
          ShareGpuAnnotations.GPU_EXCLUDE_UUIDS);

  /** What the translator makes of a pod. */
  sealed interface Outcome permits NoPeer, Refused, Rewritten {}

  /** No enabled peer's request keys: the pod goes on as written. */
  record NoPeer() implements Outcome {}

  /** A mix or a value the peer's rules refuse. */
  record Refused(List<String> reasons) implements Outcome {}

  /** The pod in ShareGPU's spelling and the patch that makes it so. */
  record Rewritten(Pod pod, List<PatchOperation> patch, Peer peer) implements Outcome {}

  private SpellingTranslator() {}

  static Outcome translate(Pod pod, Set<Peer> enabled) {
    if (enabled.isEmpty()) {
      return new NoPeer();
    }
    Map<Spelling, List<String>> present = new LinkedHashMap<>();
    for (Spelling spelling : Spellings.ALL) {
      List<String> keys = spelling.requestKeys(pod);
      if (!keys.isEmpty()) {
        present.put(spelling, keys);
      }
    }
    if (present.keySet().stream().noneMatch(s -> enabled.contains(s.peer()))) {
      return new NoPeer();
    }
    List<String> reasons = new ArrayList<>();
    if (present.size() > 1) {
      List<String> mix = new ArrayList<>();
      present.forEach((s, keys) -> mix.add(s.peer().id() + " " + keys));
      reasons.add(
          "the pod mixes the spellings of "
              + String.join(" and ", mix)
              + "; write it for one of them (or for ShareGPU) only");
    }
    List<String> own = ownKeys(pod);
    if (!own.isEmpty()) {
      reasons.add(
          "the pod has ShareGPU's own keys "
              + own
              + " next to "
              + present.keySet().iterator().next().peer().id()
              + "'s "
              + present.values().iterator().next()
              + "; keep one spelling");
    }
    if (!reasons.isEmpty()) {
      return new Refused(reasons);
    }
    Spelling spelling = present.keySet().iterator().next();
    Translation translation = spelling.translate(pod);
    if (translation instanceof Translation.Refused refused) {
      List<String> prefixed = new ArrayList<>();
      for (String reason : refused.reasons()) {
        prefixed.add(spelling.peer().id() + ": " + reason);
      }
      return new Refused(prefixed);
    }
    return rewrite(pod, (Translation.Translated) translation, spelling.peer());
  }

  private static Rewritten rewrite(Pod pod, Translation.Translated t, Peer peer) {
    Pod copy = new PodBuilder(pod).build();
    List<PatchOperation> patch = new ArrayList<>();
    List<Container> containers = copy.getSpec().getContainers();
    for (int i = 0; i < containers.size(); i++) {
      Container container = containers.get(i);
      Translation.Share share = t.shares().get(container.getName());
      ResourceRequirements old = container.getResources();
      boolean hasPeerKey =
          old != null
              && (anyKey(old.getLimits(), t.resourceKeys())
                  || anyKey(old.getRequests(), t.resourceKeys()));
      if (share == null && !hasPeerKey) {
        continue;
      }
      Map<String, Quantity> limits = without(old == null ? null : old.getLimits(), t);
      Map<String, Quantity> requests = without(old == null ? null : old.getRequests(), t);
      if (share != null) {
        put(limits, requests, ShareGpuResources.GPU_MILLI, Integer.toString(share.milli()));
        if (share.memoryMib() != null) {
          put(limits, requests, ShareGpuResources.GPU_MEMORY, share.memoryMib().toString());
        }
      }
      ResourceRequirements resources =
          new ResourceRequirements(
              old == null ? null : old.getClaims(),
              limits.isEmpty() ? null : limits,
              requests.isEmpty() ? null : requests);
      container.setResources(resources);
      Map<String, Object> wire = new LinkedHashMap<>();
      if (old != null && old.getClaims() != null && !old.getClaims().isEmpty()) {
        wire.put("claims", old.getClaims());
      }
      if (!limits.isEmpty()) {
        wire.put("limits", strings(limits));
      }
      if (!requests.isEmpty()) {
        wire.put("requests", strings(requests));
      }
      patch.add(PatchOperation.add("/spec/containers/" + i + "/resources", wire));
    }
    ObjectMeta meta = copy.getMetadata() == null ? new ObjectMeta() : copy.getMetadata();
    copy.setMetadata(meta);
    Map<String, String> annotations =
        new TreeMap<>(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
    t.annotationKeys().forEach(annotations::remove);
    annotations.putAll(t.annotations());
    annotations.put(TRANSLATED_FROM, peer.id());
    meta.setAnnotations(annotations);
    if (pod.getMetadata() == null) {
      patch.add(PatchOperation.add("/metadata", Map.of("annotations", annotations)));
    } else {
      patch.add(PatchOperation.add("/metadata/annotations", annotations));
    }
    if (!t.labelKeys().isEmpty() && meta.getLabels() != null) {
      Map<String, String> labels = new TreeMap<>(meta.getLabels());
      t.labelKeys().forEach(labels::remove);
      meta.setLabels(labels);
      patch.add(PatchOperation.add("/metadata/labels", labels));
    }
    return new Rewritten(copy, patch, peer);
  }

  private static List<String> ownKeys(Pod pod) {
    List<String> own = new ArrayList<>();
    List<Container> all = new ArrayList<>();
    if (pod.getSpec() != null) {
      all.addAll(nonNull(pod.getSpec().getInitContainers()));
      all.addAll(nonNull(pod.getSpec().getContainers()));
    }
    for (Container container : all) {
      ResourceRequirements r = container.getResources();
      if (r == null) {
        continue;
      }
      for (Map<String, Quantity> map : java.util.Arrays.asList(r.getLimits(), r.getRequests())) {
        if (map == null) {
          continue;
        }
        for (String key : map.keySet()) {
          String entry = container.getName() + "/" + key;
          if (key.startsWith(ShareGpuResources.PREFIX) && !own.contains(entry)) {
            own.add(entry);
          }
        }
      }
    }
    if (pod.getMetadata() != null && pod.getMetadata().getAnnotations() != null) {
      for (String key : OWN_ANNOTATIONS) {
        if (pod.getMetadata().getAnnotations().containsKey(key)) {
          own.add(key);
        }
      }
    }
    return own;
  }

  private static Map<String, Quantity> without(
      @Nullable Map<String, Quantity> from, Translation.Translated t) {
    Map<String, Quantity> copy = new TreeMap<>(from == null ? Map.of() : from);
    t.resourceKeys().forEach(copy::remove);
    return copy;
  }

  private static void put(
      Map<String, Quantity> limits, Map<String, Quantity> requests, String key, String value) {
    limits.put(key, new Quantity(value));
    requests.put(key, new Quantity(value));
  }

  private static boolean anyKey(@Nullable Map<String, Quantity> map, Set<String> keys) {
    return map != null && keys.stream().anyMatch(map::containsKey);
  }

  private static Map<String, String> strings(Map<String, Quantity> quantities) {
    Map<String, String> out = new TreeMap<>();
    quantities.forEach((k, v) -> out.put(k, v.toString()));
    return out;
  }

  private static <T> List<T> nonNull(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }
}
