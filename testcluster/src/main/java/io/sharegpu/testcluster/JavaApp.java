package io.sharegpu.testcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java application (a jar, or a main class with a class path) running as a child process of the
 * test JVM, with its stdout and stderr in a log file. Every app still alive when the test JVM exits
 * is killed.
 *
 * <pre>{@code
 * JavaApp extender = JavaApp.jar(jar).name("extender")
 *     .args("--server.port=" + port, "--sharegpu.extender.management-port=" + managementPort)
 *     .env("KUBECONFIG", cluster.kubeconfig().toString()).start()
 *     .waitForHttp("http://127.0.0.1:" + managementPort + "/actuator/health", Duration.ofSeconds(60));
 * }</pre>
 */
public final class JavaApp implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(JavaApp.class);
  private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
  private static final int TAIL_LINES = 80;

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "java-app-reaper"));
  }

  private final String name;
  private final Process process;
  private final Path logFile;

  private JavaApp(String name, Process process, Path logFile) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
  }

  /** Returns a builder for {@code java -jar jar}. */
  public static Builder jar(Path jar) {
    return new Builder(List.of("-jar", jar.toAbsolutePath().toString()), nameOf(jar));
  }

  /** Returns a builder for {@code java -cp classpath mainClass}. */
  public static Builder mainClass(String mainClass, String classpath) {
    String simple = mainClass.substring(mainClass.lastIndexOf('.') + 1);
    return new Builder(List.of("-cp", classpath, mainClass), simple);
  }

  /**
   * Waits until {@code url} answers a 2xx status to GET; throws, with the end of the log, if the
   * app exits first or the time runs out (the app is then left running: call {@link #kill()}).
   */
  public JavaApp waitForHttp(String url, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET().build();
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer yet";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw failure(
            name + " exited with status " + process.exitValue() + " before " + url + " answered");
      }
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 == 2) {
          log.info("{} (pid {}) answers {}", name, process.pid(), url);
          return this;
        }
        last = "status " + response.statusCode();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + url, e);
      }
      sleep(250);
    }
    throw failure(name + " did not answer " + url + " within " + timeout + " (last: " + last + ")");
  }

  /** Kills the process at once (SIGKILL), as a crash would, and waits for it to be gone. */
  public void kill() {
    process.destroyForcibly();
    awaitExit(Duration.ofSeconds(30));
    RUNNING.remove(process);
    log.info("killed {} (pid {})", name, process.pid());
  }

  /** Asks the process to stop (SIGTERM), and kills it if it has not exited after 20 seconds. */
  public void stop() {
    if (process.isAlive()) {
      process.destroy();
      if (!awaitExit(Duration.ofSeconds(20))) {
        log.warn("{} (pid {}) ignored SIGTERM for 20 s; killing it", name, process.pid());
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
      }
      log.info("stopped {} (pid {})", name, process.pid());
    }
    RUNNING.remove(process);
  }

  @Override
  public void close() {
    stop();
  }

  /** Returns whether the process is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** Returns the process id. */
  public long pid() {
    return process.pid();
  }

  /** Returns the file holding the app's stdout and stderr. */
  public Path logFile() {
    return logFile;
  }

  /** Returns the last {@code lines} lines of the log. */
  public String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  private IllegalStateException failure(String what) {
    String message =
        what + "; last lines of " + logFile + ":\n" + logTail(TAIL_LINES) + "\n(end of log)";
    System.err.println(message);
    return new IllegalStateException(message);
  }

  private boolean awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String nameOf(Path jar) {
    String file = jar.getFileName().toString();
    return file.endsWith(".jar") ? file.substring(0, file.length() - 4) : file;
  }

  /** Collects the command line, environment and log file of a {@link JavaApp}. */
  public static final class Builder {
    private final List<String> target;
    private final List<String> jvmOptions = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private String name;
    private @Nullable Path logFile;
    private @Nullable Path workingDir;

    private Builder(List<String> target, String name) {
      this.target = target;
      this.name = name;
    }

    /** Names the app in logs and messages (default: the jar or main class name). */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Adds program arguments. */
    public Builder args(String... args) {
      this.args.addAll(List.of(args));
      return this;
    }

    /** Adds JVM options such as {@code -Xmx256m} or {@code -Dkey=value}. */
    public Builder jvmOptions(String... options) {
      this.jvmOptions.addAll(List.of(options));
      return this;
    }

    /** Sets an environment variable (the child inherits this JVM's environment otherwise). */
    public Builder env(String key, String value) {
      this.env.put(key, value);
      return this;
    }

    /**
     * Writes stdout and stderr to {@code file} (appending); default: a new file in the temp dir.
     */
    public Builder logFile(Path file) {
      this.logFile = file;
      return this;
    }

    /** Runs the app in {@code dir} (default: this JVM's working directory). */
    public Builder workingDir(Path dir) {
      this.workingDir = dir;
      return this;
    }

    /** Starts the process; it runs until {@link JavaApp#stop()}, {@link JavaApp#kill()} or exit. */
    public JavaApp start() {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.addAll(target);
      command.addAll(args);
      try {
        Path file =
            logFile != null ? logFile : Files.createTempFile("sharegpu-" + name + "-", ".log");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        ProcessBuilder builder =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(file.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().putAll(env);
        if (workingDir != null) {
          builder.directory(workingDir.toFile());
        }
        Process process = builder.start();
        RUNNING.add(process);
        log.info("started {} (pid {}), log {}", name, process.pid(), file);
        return new JavaApp(name, process, file);
      } catch (IOException e) {
        throw new UncheckedIOException("could not start " + name + ": " + command, e);
      }
    }
  }
}
