package io.sharegpu.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An image archive run under runc the way the chart runs it: its own entrypoint, user and env, a
 * read-only root, a tmpfs /tmp mounted noexec (the chart's emptyDir), every capability dropped, no
 * new privileges; on the host's network so it can reach the test cluster on 127.0.0.1.
 */
final class RuncContainer implements AutoCloseable {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final String id = "sharegpu-images-" + UUID.randomUUID().toString().substring(0, 8);
  private final Path bundle;
  private final Path log;
  private boolean detached;

  private RuncContainer(Path bundle) {
    this.bundle = bundle;
    this.log = bundle.resolve("container.log");
  }

  /**
   * Unpacks the archive's layers into a bundle under workdir and writes its runc config.
   *
   * @param args appended to the image's entrypoint
   * @param env added to the image's env
   * @param files host file → path in the container, bind-mounted read-only
   */
  static RuncContainer of(
      OciArchive image,
      Path workdir,
      List<String> args,
      Map<String, String> env,
      Map<Path, String> files)
      throws IOException, InterruptedException {
    Path bundle = Files.createTempDirectory(workdir, "bundle-");
    Path rootfs = Files.createDirectories(bundle.resolve("rootfs"));
    Path layout = Files.createDirectories(bundle.resolve("oci"));
    execOrFail(
        Duration.ofMinutes(1), "tar", "-xf", image.path().toString(), "-C", layout.toString());
    for (OciArchive.Layer layer : image.layers()) {
      Path blob = layout.resolve("blobs/sha256").resolve(layer.digest().substring(7));
      execOrFail(Duration.ofMinutes(1), "tar", "-xzf", blob.toString(), "-C", rootfs.toString());
    }
    execOrFail(Duration.ofSeconds(30), "runc", "spec", "--bundle", bundle.toString());
    ObjectNode spec = (ObjectNode) JSON.readTree(bundle.resolve("config.json").toFile());
    ObjectNode process = (ObjectNode) spec.get("process");
    process.put("terminal", false);
    String[] user = image.imageConfig().get("User").asString().split(":");
    process
        .putObject("user")
        .put("uid", Integer.parseInt(user[0]))
        .put("gid", Integer.parseInt(user[1]));
    ArrayNode processArgs = process.putArray("args");
    image.entrypoint().forEach(processArgs::add);
    args.forEach(processArgs::add);
    ArrayNode processEnv = process.putArray("env");
    image.imageConfig().get("Env").forEach(e -> processEnv.add(e.asString()));
    env.forEach((k, v) -> processEnv.add(k + "=" + v));
    process.put("cwd", image.imageConfig().get("WorkingDir").asString());
    process.put("noNewPrivileges", true);
    ObjectNode capabilities = process.putObject("capabilities");
    for (String set : List.of("bounding", "effective", "permitted")) {
      capabilities.putArray(set);
    }
    spec.putObject("root").put("path", "rootfs").put("readonly", true);
    ArrayNode namespaces = spec.withObject("/linux").putArray("namespaces");
    for (String type : List.of("pid", "ipc", "uts", "mount")) {
      namespaces.addObject().put("type", type);
    }
    ArrayNode mounts = (ArrayNode) spec.get("mounts");
    ObjectNode tmp = mounts.addObject().put("destination", "/tmp").put("type", "tmpfs");
    tmp.put("source", "tmpfs")
        .putArray("options")
        .add("nosuid")
        .add("nodev")
        .add("noexec")
        .add("mode=1777");
    for (Map.Entry<Path, String> file : files.entrySet()) {
      ObjectNode bind = mounts.addObject().put("destination", file.getValue()).put("type", "bind");
      bind.put("source", file.getKey().toString()).putArray("options").add("rbind").add("ro");
    }
    JSON.writeValue(bundle.resolve("config.json").toFile(), spec);
    return new RuncContainer(bundle);
  }

  /** Runs the container to its end and returns its exit status and output. */
  Result runToEnd(Duration timeout) throws IOException, InterruptedException {
    return exec(timeout, "runc", "run", "--bundle", bundle.toString(), id);
  }

  /** Starts the container in the background; its output goes to {@link #log()}. */
  void start() throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder("runc", "run", "--detach", "--bundle", bundle.toString(), id)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("runc run --detach failed: " + log());
    }
    detached = true;
  }

  String log() throws IOException {
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (detached) {
      execOrFail(Duration.ofSeconds(30), "runc", "delete", "--force", id);
    }
  }

  record Result(int exitCode, String output) {}

  /** Runs a command to its end (killed after timeout) and returns its status and output. */
  static Result exec(Duration timeout, String... command) throws IOException, InterruptedException {
    Path output = Files.createTempFile("sharegpu-images-", ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not end in " + timeout);
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** {@link #exec}, failing unless the command exits 0. */
  static Result execOrFail(Duration timeout, String... command)
      throws IOException, InterruptedException {
    Result result = exec(timeout, command);
    if (result.exitCode() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + result.output());
    }
    return result;
  }
}
