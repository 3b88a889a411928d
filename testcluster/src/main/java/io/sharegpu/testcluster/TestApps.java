package io.sharegpu.testcluster;

import java.nio.file.Path;
import java.time.Duration;

/**
 * ShareGPU's apps as child processes of an e2e test, started the same way by every module's tests:
 * the built jar, loopback ports, the cluster's admin kubeconfig, a small heap and the C1 compiler.
 *
 * <pre>{@code
 * JavaApp extender =
 *     TestApps.startAndAwaitReady(
 *         TestApps.extender(cluster, port, managementPort).args("--sharegpu.extender.policy=binpack"),
 *         managementPort);
 * }</pre>
 */
public final class TestApps {

  /** How long an app may take to answer its readiness probe. */
  public static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private TestApps() {}

  /** The scheduler extender's jar as {@code ./mvnw -pl scheduler-extender package} builds it. */
  public static Path extenderJar() {
    return TestCluster.repoRoot()
        .resolve("scheduler-extender/target/sharegpu-scheduler-extender.jar");
  }

  /**
   * The extender named {@code extender} serving the verbs on {@code port} and debug and actuator on
   * {@code managementPort}, a client of {@code cluster} with admin rights, {@code -Xmx256m
   * -XX:TieredStopAtLevel=1}; add arguments, rename or {@link #startAndAwaitReady start} it.
   */
  public static JavaApp.Builder extender(TestCluster cluster, int port, int managementPort) {
    return JavaApp.jar(extenderJar())
        .name("extender")
        .args("--server.port=" + port, "--sharegpu.extender.management-port=" + managementPort)
        .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
        .env("KUBECONFIG", cluster.kubeconfig().toString());
  }

  /**
   * Starts {@code app} and waits up to {@link #READY_TIMEOUT} until {@code
   * http://127.0.0.1:<managementPort>/actuator/health/readiness} answers 2xx.
   */
  public static JavaApp startAndAwaitReady(JavaApp.Builder app, int managementPort) {
    return app.start()
        .waitForHttp(
            "http://127.0.0.1:" + managementPort + "/actuator/health/readiness", READY_TIMEOUT);
  }
}
