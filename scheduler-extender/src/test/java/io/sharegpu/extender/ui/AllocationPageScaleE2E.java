package io.sharegpu.extender.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The allocation page at 5,000 nodes of 8 GPUs in headless Chromium: the debug endpoints' JSON for
 * such a cluster (about 70,000 pods, a few cordoned and unhealthy GPUs) is compacted by {@link
 * AllocationPage} and served with the page's static files from a small in-process server. Prints
 * the sizes of the debug JSON and of the compact form, and the page's first render time
 * (performance.now() around parsing, indexing and drawing), which the page records on {@code <html
 * data-first-render-ms>}.
 */
class AllocationPageScaleE2E {

  private static final int NODES = 5_000;
  private static final int GPUS = 8;
  private static final String[] MODELS = {
    "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA L4"
  };
  private static final long[] MEMORY = {81559, 40960, 23034};
  private static final int[] SHARES = {100, 250, 250, 500};

  @Test
  void rendersFiveThousandNodesWithOnlyTheVisibleRowsInTheDom() throws Exception {
    HeadlessChromium.assumeInstalled();
    JsonMapper mapper = JsonMapper.builder().build();
    JsonNodeFactory f = JsonNodeFactory.instance;
    ArrayNode nodes = f.arrayNode();
    ArrayNode allocations = f.arrayNode();
    Random random = new Random(42);
    int pods = 0;
    for (int n = 0; n < NODES; n++) {
      String node = String.format("gpu-node-%05d", n);
      int m = n % MODELS.length;
      ObjectNode nodeJson = nodes.addObject().put("name", node);
      ArrayNode gpus = nodeJson.putArray("gpus");
      for (int i = 0; i < GPUS; i++) {
        String uuid =
            "GPU-" + UUID.nameUUIDFromBytes((node + "/" + i).getBytes(StandardCharsets.UTF_8));
        List<String> keys = new ArrayList<>();
        int used = 0;
        long usedMem = 0;
        boolean whole = random.nextInt(8) == 0;
        int count = whole ? 1 : random.nextInt(5);
        for (int p = 0; p < count; p++) {
          int milli = whole ? 1000 : SHARES[random.nextInt(SHARES.length)];
          if (used + milli > 1000) {
            break;
          }
          long mem = whole ? MEMORY[m] : MEMORY[m] * milli / 1000;
          String ns = String.format("team-%02d", random.nextInt(40));
          String key = ns + "/job-" + pods;
          keys.add(key);
          allocations
              .addObject()
              .put("node", node)
              .put("gpuIndex", i)
              .put("uuid", uuid)
              .put("model", MODELS[m])
              .put("pod", key)
              .put(
                  "podUid", UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString())
              .put("container", "main")
              .put("computeMilli", milli)
              .put("memoryMib", mem)
              .put("state", "BOUND");
          used += milli;
          usedMem += mem;
          pods++;
        }
        ObjectNode g =
            gpus.addObject()
                .put("index", i)
                .put("uuid", uuid)
                .put("model", MODELS[m])
                .put("memoryMib", MEMORY[m])
                .put("computeMilli", 1000)
                .put("healthy", (n * GPUS + i) % 1999 != 0)
                .putNull("parentUuid")
                .putNull("migProfile")
                .put("usedMilli", used)
                .put("usedMemoryMib", usedMem)
                .put("exclusive", whole && !keys.isEmpty());
        ArrayNode podKeys = g.putArray("pods");
        keys.forEach(podKeys::add);
        if ((n * GPUS + i) % 997 == 0) {
          g.put("cordoned", true).put("cordonReason", "ECC errors");
        }
      }
    }
    byte[] nodesJson = mapper.writeValueAsBytes(nodes);
    byte[] allocationsJson = mapper.writeValueAsBytes(allocations);
    long t0 = System.nanoTime();
    byte[] compact = mapper.writeValueAsBytes(AllocationPage.of("1-1", nodes, allocations));
    long compactMs = (System.nanoTime() - t0) / 1_000_000;
    byte[] gzip = UiController.gzip(compact);
    System.out.printf(
        "allocation page at %d nodes x %d GPUs, %d pods: /debug/nodes %d KiB + /debug/allocations"
            + " %d KiB; compact form %d KiB (%d KiB gzip), built in %d ms%n",
        NODES,
        GPUS,
        pods,
        nodesJson.length / 1024,
        allocationsJson.length / 1024,
        compact.length / 1024,
        gzip.length / 1024,
        compactMs);
    assertThat(compact.length).isLessThan((nodesJson.length + allocationsJson.length) / 2);

    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", ex -> serve(ex, compact, gzip));
    server.start();
    ChromeDriver driver = HeadlessChromium.start(1400, 1000);
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/ui/index.html";
      List<Double> times = new ArrayList<>();
      for (int run = 0; run < 3; run++) {
        driver.get(url);
        String ms = waitForRender(driver);
        times.add(Double.parseDouble(ms));
        System.out.printf(
            "first render at %d nodes, run %d: %s ms (fetch %s ms, %s bytes of JSON)%n",
            NODES, run + 1, ms, attr(driver, "fetchMs"), attr(driver, "jsonBytes"));
      }
      assertThat(driver.findElement(By.id("nodes-count")).getText())
          .isEqualTo("(" + NODES + " of " + NODES + ")");
      assertThat(driver.findElement(By.id("summary")).getText()).contains("40000");
      int rows = driver.findElements(By.cssSelector("#rows .row")).size();
      assertThat(rows).as("only the rows in view are in the DOM").isBetween(3, 60);
      assertThat(driver.findElements(By.cssSelector(".tile")).size())
          .isLessThanOrEqualTo(rows * GPUS);
      Path shot = Path.of("target/allocation-page-5000-nodes.png");
      Files.copy(
          driver.getScreenshotAs(OutputType.FILE).toPath(),
          shot,
          StandardCopyOption.REPLACE_EXISTING);
      // rows are grouped by model, then by name: the last is the last node of the last model
      String last = lastNodeInPageOrder();
      ((JavascriptExecutor) driver)
          .executeScript(
              "const v = document.getElementById('viewport'); v.scrollTop = v.scrollHeight;");
      new WebDriverWait(driver, Duration.ofSeconds(10))
          .until(
              d ->
                  !d.findElements(By.cssSelector("#rows .row[data-node='" + last + "']"))
                      .isEmpty());
      assertThat(driver.findElements(By.cssSelector("#rows .row")).size()).isLessThanOrEqualTo(60);
      // a cordoned GPU is drawn apart, with its reason
      driver.findElement(By.id("f-node")).sendKeys("gpu-node-00000");
      new WebDriverWait(driver, Duration.ofSeconds(10))
          .until(d -> d.findElements(By.cssSelector("#rows .row")).size() == 1);
      new WebDriverWait(driver, Duration.ofSeconds(10))
          .until(d -> !d.findElements(By.cssSelector(".tile.cordoned")).isEmpty());
      assertThat(driver.findElement(By.cssSelector(".tile.cordoned")).getText())
          .contains("Cordoned: ECC errors");
      System.out.printf(
          "first render at %d nodes x %d GPUs in Chromium: %s ms (3 loads)%n", NODES, GPUS, times);
    } finally {
      driver.quit();
      server.stop(0);
    }
  }

  private static String lastNodeInPageOrder() {
    String lastModel = java.util.Arrays.stream(MODELS).sorted().reduce((a, b) -> b).orElseThrow();
    int m = java.util.Arrays.asList(MODELS).indexOf(lastModel);
    int n = NODES - 1;
    while (n % MODELS.length != m) {
      n--;
    }
    return String.format("gpu-node-%05d", n);
  }

  private static String waitForRender(WebDriver driver) {
    return new WebDriverWait(driver, Duration.ofSeconds(60)).until(d -> attr(d, "firstRenderMs"));
  }

  private static String attr(WebDriver driver, String name) {
    Object v =
        ((JavascriptExecutor) driver)
            .executeScript("return document.documentElement.dataset['" + name + "'] || null;");
    return v == null ? null : v.toString();
  }

  private static void serve(HttpExchange ex, byte[] compact, byte[] gzip) throws IOException {
    String path = ex.getRequestURI().getPath();
    ex.getResponseHeaders().set("Content-Security-Policy", UiSecurityHeaders.POLICY);
    byte[] body;
    String type;
    if (path.equals("/ui/api/allocations")) {
      ex.getResponseHeaders().set("Content-Encoding", "gzip");
      ex.getResponseHeaders().set("ETag", "\"scale\"");
      body = gzip;
      type = "application/json";
    } else if (path.equals("/debug/pending")) {
      body = "{\"total\":0,\"pods\":[]}".getBytes(StandardCharsets.UTF_8);
      type = "application/json";
    } else if (path.startsWith("/ui/") && !path.contains("..")) {
      try (InputStream in = AllocationPageScaleE2E.class.getResourceAsStream("/static" + path)) {
        if (in == null) {
          ex.sendResponseHeaders(404, -1);
          ex.close();
          return;
        }
        body = in.readAllBytes();
      }
      type =
          path.endsWith(".js")
              ? "text/javascript"
              : path.endsWith(".css") ? "text/css" : "text/html; charset=utf-8";
    } else {
      ex.sendResponseHeaders(404, -1);
      ex.close();
      return;
    }
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }
}
