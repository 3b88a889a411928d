package io.sharegpu.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sharegpu.agent.gpu.GpuDiscoveryException;
import io.sharegpu.agent.gpu.GpuInventory;
import io.sharegpu.agent.gpu.GpuProcess;
import io.sharegpu.agent.gpu.GpuSnapshot;
import io.sharegpu.agent.gpu.InventoryFile;
import io.sharegpu.agent.gpu.InventorySources;
import io.sharegpu.agent.kube.GpuNodePublisher;
import io.sharegpu.agent.kube.GpuNodeStatusMapper;
import io.sharegpu.agent.usage.PodCgroups;
import io.sharegpu.agent.usage.PodIndex;
import io.sharegpu.agent.usage.UsageMetrics;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent's entry point.
 *
 * <pre>
 * java -jar sharegpu-node-agent.jar                        run (NODE_NAME required)
 * java -jar sharegpu-node-agent.jar --print-inventory      print the GPUs as JSON and exit
 * java -jar sharegpu-node-agent.jar --print-inventory --nvidia-smi   the same through nvidia-smi
 * </pre>
 *
 * Exit status 2 when the configuration is wrong or no GPU inventory source works.
 */
public final class NodeAgentApplication {

  private static final Logger log = LoggerFactory.getLogger(NodeAgentApplication.class);

  private NodeAgentApplication() {}

  public static void main(String[] args) {
    List<String> options = Arrays.asList(args);
    try {
      if (options.contains("--print-inventory")) {
        printInventory(options.contains("--nvidia-smi"), System.out);
        return;
      }
      run(AgentProperties.from(System.getenv()));
    } catch (IllegalArgumentException | GpuDiscoveryException e) {
      System.err.println("sharegpu-node-agent: " + e.getMessage());
      System.exit(2);
    }
  }

  /** Prints the inventory as JSON, then each GPU process with the pod its cgroup names. */
  static void printInventory(boolean forceNvidiaSmi, PrintStream out) {
    String file = System.getenv("SHAREGPU_AGENT_INVENTORY_FILE");
    String proc = System.getenv().getOrDefault("SHAREGPU_AGENT_HOST_PROC", "/proc");
    String pipe =
        System.getenv().getOrDefault("SHAREGPU_AGENT_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps");
    try (GpuInventory inventory =
        InventorySources.open(
            Optional.ofNullable(file).filter(f -> !f.isBlank()).map(java.nio.file.Path::of),
            forceNvidiaSmi)) {
      GpuSnapshot snapshot = inventory.snapshot();
      out.println(InventoryFile.toJson(inventory.source(), snapshot));
      out.println("enforcement: " + NodeAgent.enforcement(java.nio.file.Path.of(pipe)));
      out.println("capacity: " + GpuNodeStatusMapper.capacity(snapshot));
      out.println("allocatable: " + GpuNodeStatusMapper.allocatable(snapshot));
      PodCgroups cgroups = new PodCgroups(java.nio.file.Path.of(proc));
      for (GpuProcess p : snapshot.processes()) {
        out.println(
            "process "
                + p.pid()
                + " on "
                + p.deviceUuid()
                + " uses "
                + p.usedMemoryBytes() / (1024 * 1024)
                + " MiB, pod: "
                + cgroups.of(p.pid()).map(Object::toString).orElse("none"));
      }
    }
  }

  private static void run(AgentProperties props) {
    GpuInventory inventory = InventorySources.open(props.inventoryFile(), false);
    log.info(
        "node {}: GPU inventory from {}, heartbeat {}, MPS pipe {}, host proc {}",
        props.nodeName(),
        inventory.source(),
        props.heartbeat(),
        props.mpsPipeDirectory(),
        props.hostProc());
    KubernetesClient client = new KubernetesClientBuilder().build();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PodIndex pods = new PodIndex(client, props.nodeName());
    UsageMetrics metrics =
        new UsageMetrics(registry, props.nodeName(), new PodCgroups(props.hostProc()), pods);
    GpuNodePublisher publisher = new GpuNodePublisher(client, props.nodeName());
    NodeAgent agent =
        new NodeAgent(inventory, publisher, metrics, props.mpsPipeDirectory(), Clock.systemUTC());

    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "node-agent");
              t.setDaemon(false);
              return t;
            });
    loop.scheduleWithFixedDelay(
        agent::runOnce, 0, props.heartbeat().toMillis(), TimeUnit.MILLISECONDS);

    // Re-assert the extended resources as soon as something removes or changes them: a kubelet
    // that registers without its device-manager checkpoint zeroes them, and a kubelet restarting
    // while they read zero rejects every running GPU pod (OutOfsharegpu.io/gpu-milli).
    SharedIndexInformer<Node> nodeWatch =
        client.nodes().withField("metadata.name", props.nodeName()).inform(reassert(loop, agent));

    HttpServer http = startHttp(props.metricsPort(), registry, agent, props.heartbeat());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  http.stop(0);
                  nodeWatch.close();
                  loop.shutdownNow();
                  pods.close();
                  inventory.close();
                  client.close();
                }));
  }

  private static ResourceEventHandler<Node> reassert(
      ScheduledExecutorService loop, NodeAgent agent) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Node node) {
        check(node);
      }

      @Override
      public void onUpdate(Node before, Node after) {
        check(after);
      }

      @Override
      public void onDelete(Node node, boolean unknown) {}

      private void check(Node node) {
        if (!agent.advertisesCapacity(node)) {
          log.info(
              "node {}: the ShareGPU capacity was changed by someone else ({}); re-asserting",
              node.getMetadata().getName(),
              advertised(node));
          loop.execute(agent::runOnce);
        }
      }
    };
  }

  private static String advertised(Node node) {
    if (node.getStatus() == null || node.getStatus().getCapacity() == null) {
      return "no capacity";
    }
    return io.sharegpu.api.ShareGpuResources.GPU_MILLI
        + "="
        + node.getStatus().getCapacity().get(io.sharegpu.api.ShareGpuResources.GPU_MILLI);
  }

  /**
   * Serves {@code /metrics} (Prometheus text), {@code /healthz} and {@code /readyz} (200 once a
   * cycle published within three heartbeats, else 503).
   */
  static HttpServer startHttp(
      int port, PrometheusMeterRegistry registry, NodeAgent agent, Duration heartbeat) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
      server.createContext(
          "/metrics",
          exchange ->
              respond(
                  exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
      server.createContext("/healthz", exchange -> respond(exchange, 200, "text/plain", "ok\n"));
      server.createContext(
          "/readyz",
          exchange -> {
            Instant last = agent.lastSuccess();
            boolean fresh =
                last != null && last.isAfter(Instant.now().minus(heartbeat.multipliedBy(3)));
            respond(
                exchange,
                fresh ? 200 : 503,
                "text/plain",
                fresh ? "ok\n" : "no successful report in the last three heartbeats\n");
          });
      server.setExecutor(Executors.newSingleThreadExecutor());
      server.start();
      log.info("metrics on :{}/metrics", port);
      return server;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot listen on port " + port + ": " + e.getMessage(), e);
    }
  }

  private static void respond(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
