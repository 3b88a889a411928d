package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JavaAppTest {

  @TempDir Path logs;

  private static String testClasspath() throws URISyntaxException {
    return Path.of(GreetingServer.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .toString();
  }

  @Test
  void startsAMainClassWithArgsEnvAndJvmOptionsAndKillsIt() throws Exception {
    int port = Ports.free();
    JavaApp app =
        JavaApp.mainClass(GreetingServer.class.getName(), testClasspath())
            .args(Integer.toString(port))
            .env("GREETING", "hello")
            .jvmOptions("-Dsuffix=world", "-Xshare:auto")
            .logFile(logs.resolve("greeting.log"))
            .start();
    try {
      String url = "http://127.0.0.1:" + port + "/";
      app.waitForHttp(url, Duration.ofSeconds(60));

      String body =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(url)).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(body).isEqualTo("hello world");
      assertThat(app.logTail(5)).contains("listening on " + port);
      assertThat(app.logFile()).isEqualTo(logs.resolve("greeting.log"));
    } finally {
      app.kill();
    }
    assertThat(app.isAlive()).isFalse();
  }

  @Test
  void reportsExitStatusAndLogTailWhenTheAppDiesBeforeAnswering() throws Exception {
    int port = Ports.free();
    JavaApp app =
        JavaApp.mainClass(GreetingServer.class.getName(), testClasspath())
            .name("failing-app")
            .args(Integer.toString(port), "fail")
            .logFile(logs.resolve("failing.log"))
            .start();

    assertThatThrownBy(
            () -> app.waitForHttp("http://127.0.0.1:" + port + "/", Duration.ofSeconds(60)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("failing-app exited with status 3")
        .hasMessageContaining("boom: refusing to start");
    assertThat(app.isAlive()).isFalse();
  }

  @Test
  void freePortCanBeBoundOnLoopback() throws IOException {
    int port = Ports.free();
    assertThat(port).isBetween(1, 65535);
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(socket.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void repoRootHoldsTheBuildScript() {
    assertThat(TestCluster.repoRoot().resolve("testcluster/build")).isRegularFile();
  }
}
