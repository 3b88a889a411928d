package io.sharegpu.extender.web;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The shape checks a decoded request must pass before the handler sees it: what JSON allows but
 * kube-scheduler never sends (a null container, a Node without a name, a name longer than
 * Kubernetes allows). A failure is a {@link MalformedRequestException} naming the place, answered
 * with 400. What kube-scheduler may send but the extender cannot serve (a Pod without metadata, an
 * invalid GPU request) is left to the handler, which answers with {@code Error}.
 */
final class WireChecks {

  /** Longest object name Kubernetes accepts (a DNS subdomain): pods and nodes. */
  static final int MAX_NAME = 253;

  /** Longest namespace (a DNS label). */
  static final int MAX_NAMESPACE = 63;

  /** Longest UID accepted; Kubernetes writes 36-character UUIDs. */
  static final int MAX_UID = 128;

  /** Kubernetes' limit on all annotations of one object together, keys and values, in bytes. */
  static final int MAX_ANNOTATIONS = 256 * 1024;

  private WireChecks() {}

  /** Checks filter and prioritize bodies. */
  static void check(ExtenderArgs args) {
    if (args.pod() != null) {
      pod(args.pod(), "Pod");
    }
    List<String> names = args.nodeNames();
    if (names != null) {
      for (int i = 0; i < names.size(); i++) {
        name(names.get(i), MAX_NAME, "NodeNames[" + i + "]");
      }
    }
    if (args.nodes() != null && args.nodes().getItems() != null) {
      List<Node> items = args.nodes().getItems();
      for (int i = 0; i < items.size(); i++) {
        Node n = items.get(i);
        String at = "Nodes.items[" + i + "]";
        if (n == null || n.getMetadata() == null) {
          throw malformed(at + " has no metadata");
        }
        name(n.getMetadata().getName(), MAX_NAME, at + ".metadata.name");
      }
    }
  }

  /** Checks preempt bodies. */
  static void check(ExtenderPreemptionArgs args) {
    if (args.pod() != null) {
      pod(args.pod(), "Pod");
    }
    if (args.nodeNameToVictims() != null) {
      for (Map.Entry<String, ExtenderPreemptionArgs.Victims> e :
          args.nodeNameToVictims().entrySet()) {
        String at = "NodeNameToVictims";
        name(e.getKey(), MAX_NAME, at + " key");
        List<Pod> pods = e.getValue() == null ? null : e.getValue().pods();
        for (int i = 0; pods != null && i < pods.size(); i++) {
          Pod p = pods.get(i);
          if (p == null || p.getMetadata() == null) {
            throw malformed(at + ".Pods[" + i + "] has no metadata");
          }
          pod(p, at + ".Pods[" + i + "]");
        }
      }
    }
    if (args.nodeNameToMetaVictims() != null) {
      for (Map.Entry<String, ExtenderPreemptionArgs.MetaVictims> e :
          args.nodeNameToMetaVictims().entrySet()) {
        String at = "NodeNameToMetaVictims";
        name(e.getKey(), MAX_NAME, at + " key");
        List<ExtenderPreemptionArgs.MetaPod> pods =
            e.getValue() == null ? null : e.getValue().pods();
        for (int i = 0; pods != null && i < pods.size(); i++) {
          ExtenderPreemptionArgs.MetaPod p = pods.get(i);
          name(p == null ? null : p.uid(), MAX_UID, at + ".Pods[" + i + "].UID");
        }
      }
    }
  }

  private static void pod(Pod pod, String at) {
    ObjectMeta meta = pod.getMetadata();
    if (meta != null) {
      optionalName(meta.getName(), MAX_NAME, at + ".metadata.name");
      optionalName(meta.getNamespace(), MAX_NAMESPACE, at + ".metadata.namespace");
      optionalName(meta.getUid(), MAX_UID, at + ".metadata.uid");
      Map<String, String> annotations = meta.getAnnotations();
      if (annotations != null) {
        long size = 0;
        for (Map.Entry<String, String> a : annotations.entrySet()) {
          size += a.getKey().length() + (a.getValue() == null ? 0 : a.getValue().length());
        }
        if (size > MAX_ANNOTATIONS) {
          throw malformed(at + ".metadata.annotations are larger than " + MAX_ANNOTATIONS);
        }
      }
    }
    PodSpec spec = pod.getSpec();
    if (spec != null) {
      containers(spec.getContainers(), at + ".spec.containers");
      containers(spec.getInitContainers(), at + ".spec.initContainers");
    }
  }

  private static void containers(@Nullable List<Container> containers, String at) {
    if (containers == null) {
      return;
    }
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      String here = at + "[" + i + "]";
      if (c == null) {
        throw malformed(here + " is null");
      }
      optionalName(c.getName(), MAX_NAME, here + ".name");
      ResourceRequirements r = c.getResources();
      if (r != null) {
        quantities(r.getLimits(), here + ".resources.limits");
        quantities(r.getRequests(), here + ".resources.requests");
      }
    }
  }

  private static void quantities(@Nullable Map<String, Quantity> quantities, String at) {
    if (quantities == null) {
      return;
    }
    for (Map.Entry<String, Quantity> q : quantities.entrySet()) {
      if (q.getValue() == null || q.getValue().getAmount() == null) {
        throw malformed(at + " has a resource without a quantity");
      }
    }
  }

  private static void name(@Nullable String name, int max, String at) {
    if (name == null) {
      throw malformed(at + " is missing");
    }
    optionalName(name, max, at);
  }

  private static void optionalName(@Nullable String name, int max, String at) {
    if (name != null && name.length() > max) {
      throw malformed(at + " is longer than " + max + " characters");
    }
  }

  private static MalformedRequestException malformed(String message) {
    return new MalformedRequestException(message);
  }
}
