package io.sharegpu.extender.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;

/**
 * A read-only Kubernetes API server for heap measurements, run as its own process so that the
 * objects it serves do not count in the measured JVM's heap. It answers the list and watch requests
 * of the extender's informers (Nodes, GPUNodes, Pods) from {@link ClusterObjects}, generating each
 * page as it is written ({@code limit} and {@code continue} are honoured); watches stay open and
 * send nothing. The WebSocket upgrade that fabric8 tries first is answered 200, after which fabric8
 * watches over plain HTTP. Anything else is answered 404 and logged.
 *
 * <p>Usage: {@code FakeApiServer NODES GPUS_PER_NODE PODS}; prints {@code port N} when listening
 * and exits when its standard input closes.
 */
public final class FakeApiServer {

  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final String LIST_VERSION = "9000000";

  private FakeApiServer() {}

  /** Runs the server. */
  public static void main(String[] args) throws Exception {
    int nodes = Integer.parseInt(args[0]);
    int gpusPerNode = Integer.parseInt(args[1]);
    int pods = Integer.parseInt(args[2]);
    ClusterObjects objects = new ClusterObjects(nodes, gpusPerNode, pods);
    CountDownLatch stop = new CountDownLatch(1);
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/",
        ex -> {
          try {
            handle(ex, objects, nodes, pods, stop);
          } catch (IOException | RuntimeException e) {
            if (stop.getCount() > 0) {
              System.err.println("fake API server: " + ex.getRequestURI() + ": " + e);
            }
          } finally {
            ex.close();
          }
        });
    server.start();
    System.out.println("port " + server.getAddress().getPort());
    System.out.flush();
    while (System.in.read() >= 0) {
      // the parent closes our stdin when it is done (or dies)
    }
    stop.countDown();
    server.stop(0);
    System.exit(0);
  }

  private static void handle(
      HttpExchange ex, ClusterObjects objects, int nodes, int pods, CountDownLatch stop)
      throws IOException {
    String path = ex.getRequestURI().getPath();
    Map<String, String> query = query(ex.getRequestURI().getRawQuery());
    ex.getResponseHeaders().add("Content-Type", "application/json");
    if (!"GET".equals(ex.getRequestMethod())) {
      notFound(ex, path);
      return;
    }
    if ("true".equals(query.get("watch")) || "1".equals(query.get("watch"))) {
      if (ex.getRequestHeaders().containsKey("Upgrade")) {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        return;
      }
      ex.sendResponseHeaders(200, 0);
      ex.getResponseBody().flush();
      try {
        stop.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    switch (path) {
      case "/api/v1/nodes" -> list(ex, query, "v1", "NodeList", nodes, objects::node);
      case "/apis/sharegpu.io/v1alpha1/gpunodes" ->
          list(ex, query, "sharegpu.io/v1alpha1", "GPUNodeList", nodes, objects::gpuNode);
      case "/api/v1/pods" -> list(ex, query, "v1", "PodList", pods, objects::pod);
      // the preempt verb's PodDisruptionBudget informer: none in the generated cluster
      case "/apis/policy/v1/poddisruptionbudgets" ->
          list(ex, query, "policy/v1", "PodDisruptionBudgetList", 0, i -> new Object());
      default -> notFound(ex, path);
    }
  }

  private static void list(
      HttpExchange ex,
      Map<String, String> query,
      String apiVersion,
      String kind,
      int count,
      IntFunction<Object> item)
      throws IOException {
    int from = query.containsKey("continue") ? Integer.parseInt(query.get("continue")) : 0;
    long limit = query.containsKey("limit") ? Long.parseLong(query.get("limit")) : 0;
    int to = limit > 0 ? (int) Math.min(count, from + limit) : count;
    if (Boolean.getBoolean("fake.log")) {
      System.err.println("fake API server: " + kind + " " + from + ".." + to + " of " + count);
    }
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = new BufferedOutputStream(ex.getResponseBody(), 1 << 16)) {
      StringBuilder head = new StringBuilder();
      head.append("{\"apiVersion\":\"")
          .append(apiVersion)
          .append("\",\"kind\":\"")
          .append(kind)
          .append("\",\"metadata\":{\"resourceVersion\":\"")
          .append(LIST_VERSION)
          .append('"');
      if (to < count) {
        head.append(",\"continue\":\"").append(to).append('"');
      }
      head.append("},\"items\":[");
      out.write(head.toString().getBytes(StandardCharsets.UTF_8));
      long bytes = 0;
      for (int i = from; i < to; i++) {
        if (i > from) {
          out.write(',');
        }
        byte[] json = JSON.asJson(item.apply(i)).getBytes(StandardCharsets.UTF_8);
        out.write(json);
        bytes += json.length;
      }
      out.write("]}".getBytes(StandardCharsets.UTF_8));
      if (from == 0 && to > 0) {
        System.err.printf(
            Locale.ROOT,
            "fake API server: %s items average %,d bytes of JSON%n",
            kind,
            bytes / (to - from));
      }
    }
  }

  private static void notFound(HttpExchange ex, String path) throws IOException {
    System.err.println("fake API server: no answer for " + ex.getRequestMethod() + " " + path);
    byte[] body =
        ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\","
                + "\"code\":404}")
            .getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(404, body.length);
    ex.getResponseBody().write(body);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> m = new HashMap<>();
    if (raw == null) {
      return m;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      String k = eq < 0 ? part : part.substring(0, eq);
      String v = eq < 0 ? "" : part.substring(eq + 1);
      m.put(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return m;
  }
}
