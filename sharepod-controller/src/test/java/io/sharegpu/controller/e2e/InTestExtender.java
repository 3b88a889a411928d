package io.sharegpu.controller.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.assignment.AssignmentAnnotations;
import io.sharegpu.api.assignment.ContainerAssignment;
import io.sharegpu.api.assignment.PodAssignment;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.gpunode.GpuStatus;
import io.sharegpu.api.request.ContainerGpuRequest;
import io.sharegpu.api.request.ParsedRequest;
import io.sharegpu.api.request.PodGpuRequestParser;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A minimal scheduler extender for the e2e test, standing in for the real one: filter keeps the
 * nodes with a free GPU of an allowed model, bind picks GPUs, writes the assignment annotations
 * exactly as the real extender does ({@link AssignmentAnnotations#encode}), then creates the
 * Binding. Its ledger is a map in memory; pods that are gone free their GPUs on the next filter.
 */
final class InTestExtender implements AutoCloseable {

  private final KubernetesClient client;
  private final HttpServer server;

  /** node -> uuid -> (namespace/name/uid -> milli). */
  private final Map<String, Map<String, Map<String, Integer>>> used = new HashMap<>();

  InTestExtender(KubernetesClient client) throws IOException {
    this.client = client;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/filter", this::filter);
    server.createContext("/prioritize", this::prioritize);
    server.createContext("/bind", this::bind);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  @SuppressWarnings("unchecked")
  private synchronized void filter(HttpExchange exchange) throws IOException {
    Map<String, Object> args = read(exchange);
    Pod pod = client.getKubernetesSerialization().convertValue(args.get("Pod"), Pod.class);
    List<String> names = (List<String>) args.get("NodeNames");
    forgetGonePods();
    List<String> fit = new ArrayList<>();
    Map<String, String> failed = new LinkedHashMap<>();
    for (String node : names) {
      if (choose(node, pod).isPresent()) {
        fit.add(node);
      } else {
        failed.put(node, "no GPU of an allowed model with enough free compute");
      }
    }
    respond(exchange, Map.of("NodeNames", fit, "FailedNodes", failed, "Error", ""));
  }

  @SuppressWarnings("unchecked")
  private void prioritize(HttpExchange exchange) throws IOException {
    List<String> names = (List<String>) read(exchange).get("NodeNames");
    List<Map<String, Object>> scores = new ArrayList<>();
    for (String n : names) {
      scores.add(Map.of("Host", n, "Score", 5));
    }
    respond(exchange, scores);
  }

  private synchronized void bind(HttpExchange exchange) throws IOException {
    Map<String, Object> args = read(exchange);
    String namespace = (String) args.get("PodNamespace");
    String name = (String) args.get("PodName");
    String uid = (String) args.get("PodUID");
    String node = (String) args.get("Node");
    String error = "";
    try {
      Pod pod = client.pods().inNamespace(namespace).withName(name).get();
      if (pod == null || !uid.equals(pod.getMetadata().getUid())) {
        throw new IllegalStateException("pod " + namespace + "/" + name + " is gone");
      }
      ContainerGpuRequest request = request(pod).orElseThrow();
      List<String> gpus = choose(node, pod).orElseThrow(() -> new IllegalStateException("no fit"));
      long perGpu = request.memoryMib() / gpus.size();
      PodAssignment assignment =
          new PodAssignment(
              node,
              List.of(
                  new ContainerAssignment(
                      request.container(), gpus, perGpu, request.limitMilli())));
      Map<String, String> annotations = AssignmentAnnotations.encode(assignment, Instant.now());
      client
          .pods()
          .inNamespace(namespace)
          .resource(
              new PodBuilder(pod)
                  .editMetadata()
                  .addToAnnotations(annotations)
                  .endMetadata()
                  .build())
          .update(); // resourceVersion precondition, as the real extender does
      client
          .bindings()
          .inNamespace(namespace)
          .resource(
              new BindingBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(namespace)
                  .withUid(uid)
                  .endMetadata()
                  .withNewTarget()
                  .withApiVersion("v1")
                  .withKind("Node")
                  .withName(node)
                  .endTarget()
                  .build())
          .create();
      int share = Math.min(request.computeMilli(), 1000);
      for (String gpu : gpus) {
        used.computeIfAbsent(node, n -> new HashMap<>())
            .computeIfAbsent(gpu, g -> new HashMap<>())
            .put(namespace + "/" + name + "/" + uid, share);
      }
    } catch (RuntimeException e) {
      error = "binding " + namespace + "/" + name + " failed: " + e.getMessage();
    }
    respond(exchange, Map.of("Error", error));
  }

  /** Returns the GPUs of {@code node} that can take {@code pod}, or empty. */
  private Optional<List<String>> choose(String node, Pod pod) {
    Optional<ContainerGpuRequest> request = request(pod);
    GPUNode gpuNode = client.resources(GPUNode.class).withName(node).get();
    if (request.isEmpty() || gpuNode == null || gpuNode.getStatus() == null) {
      return Optional.empty();
    }
    String models =
        Objects.requireNonNullElse(
            pod.getMetadata().getAnnotations().get(ShareGpuAnnotations.GPU_MODELS), "");
    int need = request.get().gpuCount();
    int milli = Math.min(request.get().computeMilli(), 1000);
    List<String> chosen = new ArrayList<>();
    for (GpuStatus gpu : gpuNode.getStatus().getGpus()) {
      int taken =
          used.getOrDefault(node, Map.of()).getOrDefault(gpu.getUuid(), Map.of()).values().stream()
              .mapToInt(Integer::intValue)
              .sum();
      if (modelAllowed(models, gpu.getModel()) && taken + milli <= 1000 && chosen.size() < need) {
        chosen.add(gpu.getUuid());
      }
    }
    return chosen.size() == need ? Optional.of(chosen) : Optional.empty();
  }

  private static boolean modelAllowed(String models, String model) {
    if (models.isBlank()) {
      return true;
    }
    for (String m : models.split(",")) {
      if (model.toLowerCase(Locale.ROOT).contains(m.trim().toLowerCase(Locale.ROOT))) {
        return true;
      }
    }
    return false;
  }

  private static Optional<ContainerGpuRequest> request(Pod pod) {
    ParsedRequest parsed = PodGpuRequestParser.parse(pod);
    return parsed instanceof ParsedRequest.Valid valid
        ? Optional.of(valid.request().containers().get(0))
        : Optional.empty();
  }

  private void forgetGonePods() {
    for (Map<String, Map<String, Integer>> gpus : used.values()) {
      for (Map<String, Integer> pods : gpus.values()) {
        pods.keySet()
            .removeIf(
                key -> {
                  String[] parts = key.split("/", 3);
                  Pod pod = client.pods().inNamespace(parts[0]).withName(parts[1]).get();
                  return pod == null
                      || !parts[2].equals(pod.getMetadata().getUid())
                      || pod.getMetadata().getDeletionTimestamp() != null;
                });
      }
    }
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> read(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    return Objects.requireNonNull(client.getKubernetesSerialization().unmarshal(body, Map.class));
  }

  private void respond(HttpExchange exchange, Object value) throws IOException {
    byte[] json =
        client.getKubernetesSerialization().asJson(value).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, json.length);
    exchange.getResponseBody().write(json);
    exchange.close();
  }

  static Quantity q(String s) {
    return new Quantity(s);
  }
}
