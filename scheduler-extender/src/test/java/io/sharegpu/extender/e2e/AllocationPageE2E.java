package io.sharegpu.extender.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.sharegpu.api.ShareGpuAnnotations;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.extender.ui.HeadlessChromium;
import io.sharegpu.testcluster.JavaApp;
import io.sharegpu.testcluster.Ports;
import io.sharegpu.testcluster.TestApps;
import io.sharegpu.testcluster.TestCluster;
import io.sharegpu.testcluster.TestNodes;
import io.sharegpu.testcluster.TestPods;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The allocation page at {@code /ui} in headless Chromium, against the extender behind the real
 * kube-scheduler and kube-apiserver: share pods drawn on the GPUs they were bound to (name,
 * namespace, share), a pod that fits no GPU listed as pending with the extender's reason, the
 * namespace filter, and a pod bound while the page is open appearing without a reload. Saves a
 * screenshot as {@code target/allocation-page.png} (the one in docs/images is a copy).
 */
class AllocationPageE2E {

  private static final String NS_A = "ui-research";
  private static final String NS_B = "ui-serving";
  private static final String H100 = "ui-h100";
  private static final String T4 = "ui-t4";
  private static TestCluster cluster;
  private static KubernetesClient client;
  private static JavaApp extender;
  private static int port;
  private static int managementPort;

  @BeforeAll
  static void startAll() {
    HeadlessChromium.assumeInstalled();
    cluster = TestCluster.shared();
    client = cluster.client();
    cluster.applyShareGpuCrds();
    for (String ns : List.of(NS_A, NS_B)) {
      cluster.applyNamespace(ns);
    }
    gpuNode(H100, "NVIDIA H100 80GB HBM3", 4, 81559);
    gpuNode(T4, "Tesla T4", 2, 15360);
    port = Ports.free();
    managementPort = Ports.free();
    Path jar = TestApps.extenderJar();
    assertThat(Files.exists(jar)).as("built jar " + jar).isTrue();
    extender =
        TestApps.startAndAwaitReady(
            TestApps.extender(cluster, port, managementPort)
                .name("extender-ui")
                .args("--sharegpu.extender.policy=binpack"),
            managementPort);
    cluster.startScheduler("http://127.0.0.1:" + port);
  }

  @AfterAll
  static void stopAll() {
    if (cluster != null) {
      cluster.stopScheduler();
    }
    if (extender != null) {
      extender.stop();
    }
    if (client != null) {
      client.namespaces().withName(NS_A).delete();
      client.namespaces().withName(NS_B).delete();
      for (String n : List.of(H100, T4)) {
        client.nodes().withName(n).delete();
        client.resources(GPUNode.class).withName(n).delete();
      }
    }
  }

  @Test
  void showsPodsOnTheirGpusThePendingPodWithItsReasonFiltersAndUpdatesLive() throws Exception {
    createPod(NS_A, "train-llm", "H100", 500, 20480);
    createPod(NS_A, "notebook-alice", "H100", 250, 10240);
    createPod(NS_A, "finetune", "H100", 1000, 0);
    createPod(NS_B, "infer-1", "T4", 600, 4096);
    createPod(NS_B, "infer-2", "T4", 600, 4096);
    for (String[] p :
        List.of(
            new String[] {NS_A, "train-llm"},
            new String[] {NS_A, "notebook-alice"},
            new String[] {NS_A, "finetune"},
            new String[] {NS_B, "infer-1"},
            new String[] {NS_B, "infer-2"})) {
      awaitBound(p[0], p[1]);
    }
    // the node-level sums leave 800m on the T4 node, but no single T4 has 600m free
    createPod(NS_B, "infer-3", "T4", 600, 4096);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(() -> assertThat(get("/debug/pending").body()).contains(NS_B + "/infer-3"));
    assertThat(pod(NS_B, "infer-3").getSpec().getNodeName()).isNull();

    HttpResponse<String> page = get("/ui/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Security-Policy"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("default-src 'self'"));

    // the page's data: an unchanged ledger is answered 304 without a body
    HttpResponse<String> data = get("/ui/api/allocations");
    assertThat(data.statusCode()).isEqualTo(200);
    assertThat(data.body()).contains("\"infer-1\"").contains("GPU-" + T4 + "-0");
    String etag = data.headers().firstValue("ETag").orElseThrow();
    HttpResponse<String> again =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + managementPort + "/ui/api/allocations"))
                    .header("If-None-Match", etag)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(again.statusCode()).isEqualTo(304);

    ChromeDriver driver = HeadlessChromium.start(1400, 1000);
    try {
      driver.get("http://127.0.0.1:" + managementPort + "/ui");
      WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
      // a live update re-renders the tiles: an element found a moment ago may be gone; look again
      wait.ignoring(StaleElementReferenceException.class);
      wait.until(d -> d.findElements(By.cssSelector(".tile")).size() == 6);
      System.out.printf(
          "allocation page first render with %d nodes: %s ms%n", 2, attr(driver, "firstRenderMs"));

      // each pod on the GPU its annotation names, with its namespace and share
      for (String[] p :
          List.of(
              new String[] {NS_A, "train-llm", "0.5"},
              new String[] {NS_A, "notebook-alice", "0.25"},
              new String[] {NS_A, "finetune", "whole"},
              new String[] {NS_B, "infer-1", "0.6"},
              new String[] {NS_B, "infer-2", "0.6"})) {
        String uuid =
            pod(p[0], p[1]).getMetadata().getAnnotations().get(ShareGpuAnnotations.ASSIGNED_GPUS);
        WebElement tile = driver.findElement(By.cssSelector(".tile[data-uuid='" + uuid + "']"));
        assertThat(tile.getText()).as(uuid).contains(p[1] + " " + p[0]).contains(p[2]);
        assertThat(tile.getAttribute("aria-label"))
            .contains(p[0] + "/" + p[1] + " share " + p[2])
            .contains(uuid);
      }
      // the pending pod with the extender's reason for the T4 node
      wait.until(
          d ->
              !d.findElements(By.cssSelector("#pending tr[data-pod='" + NS_B + "/infer-3']"))
                  .isEmpty());
      String pendingRow =
          driver
              .findElement(By.cssSelector("#pending tr[data-pod='" + NS_B + "/infer-3']"))
              .getText();
      assertThat(pendingRow).contains("infer-3").contains("no GPU has 600m compute").contains(T4);
      assertThat(driver.findElement(By.id("summary")).getText())
          .contains("Unallocated GPU compute");

      // the namespace filter hides the other namespace's pods, nodes and pending pods
      new Select(driver.findElement(By.id("f-ns"))).selectByValue(NS_A);
      wait.until(d -> !d.findElement(By.id("rows")).getText().contains(NS_B));
      assertThat(driver.findElement(By.id("rows")).getText()).contains("train-llm " + NS_A);
      assertThat(driver.findElements(By.cssSelector("#rows .row[data-node='" + T4 + "']")))
          .isEmpty();
      assertThat(driver.findElement(By.id("pending")).getText()).doesNotContain("infer-3");
      new Select(driver.findElement(By.id("f-ns"))).selectByValue("");
      wait.until(d -> d.findElement(By.id("rows")).getText().contains("infer-1 " + NS_B));

      // the model filter keeps the nodes with GPUs of that model
      new Select(driver.findElement(By.id("f-model"))).selectByValue("Tesla T4");
      wait.until(
          d -> d.findElements(By.cssSelector("#rows .row[data-node='" + H100 + "']")).isEmpty());
      assertThat(driver.findElements(By.cssSelector("#rows .row[data-node='" + T4 + "']")))
          .hasSize(1);
      new Select(driver.findElement(By.id("f-model"))).selectByValue("");
      wait.until(d -> d.findElements(By.cssSelector("#rows .row")).size() == 2);

      // keyboard: the tiles take focus and say what they hold
      WebElement firstTile = driver.findElement(By.cssSelector(".tile"));
      ((JavascriptExecutor) driver).executeScript("document.getElementById('viewport').focus()");
      new Actions(driver).sendKeys(Keys.TAB).perform();
      assertThat(driver.switchTo().activeElement().getAttribute("data-uuid"))
          .isEqualTo(firstTile.getAttribute("data-uuid"));

      String focused = driver.switchTo().activeElement().getAttribute("data-uuid");

      // a pod bound while the page is open appears without a reload
      ((JavascriptExecutor) driver).executeScript("window.sameDocument = 'yes';");
      createPod(NS_A, "eval-late", "H100", 200, 8192);
      awaitBound(NS_A, "eval-late");
      String lateUuid =
          pod(NS_A, "eval-late")
              .getMetadata()
              .getAnnotations()
              .get(ShareGpuAnnotations.ASSIGNED_GPUS);
      wait.until(
          d ->
              d.findElement(By.cssSelector(".tile[data-uuid='" + lateUuid + "']"))
                  .getText()
                  .contains("eval-late " + NS_A));
      assertThat(((JavascriptExecutor) driver).executeScript("return window.sameDocument;"))
          .as("no reload")
          .isEqualTo("yes");
      assertThat(driver.switchTo().activeElement().getAttribute("data-uuid"))
          .as("the focused tile keeps focus across the update")
          .isEqualTo(focused);

      ((JavascriptExecutor) driver)
          .executeScript("document.activeElement.blur(); window.scrollTo(0, 0);");
      driver.manage().window().setSize(new Dimension(1280, 820));
      Path shot = TestCluster.repoRoot().resolve("scheduler-extender/target/allocation-page.png");
      Files.createDirectories(shot.getParent());
      Files.copy(
          driver.getScreenshotAs(OutputType.FILE).toPath(),
          shot,
          StandardCopyOption.REPLACE_EXISTING);
      System.out.println("screenshot: " + shot);
    } finally {
      driver.quit();
    }
  }

  // ---------------------------------------------------------------------------------- helpers

  private static String attr(WebDriver driver, String name) {
    Object v =
        ((JavascriptExecutor) driver)
            .executeScript("return document.documentElement.dataset['" + name + "'] || null;");
    return v == null ? "?" : v.toString();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static void createPod(String ns, String name, String model, int milli, long memoryMib) {
    TestPods.pod(name)
        .namespace(ns)
        .model(model)
        .share(milli, memoryMib)
        .gracePeriod(0)
        .create(client);
  }

  private static Pod pod(String ns, String name) {
    return client.pods().inNamespace(ns).withName(name).get();
  }

  private static void awaitBound(String ns, String name) {
    TestPods.awaitBound(client, ns, name, Duration.ofSeconds(60));
  }

  private static void gpuNode(String name, String model, int count, long memMib) {
    TestNodes.gpuNode(name).gpus(count, model, memMib).create(client);
  }
}
