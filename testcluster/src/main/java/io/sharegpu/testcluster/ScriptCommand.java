package io.sharegpu.testcluster;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one of the testcluster shell scripts, streams its output to the log and returns it. The
 * scripts send their long-running children's output to files, so reading to the end of the output
 * ends when the script does.
 */
final class ScriptCommand {

  private static final Logger log = LoggerFactory.getLogger(ScriptCommand.class);

  private ScriptCommand() {}

  /** Runs {@code script args...}; returns its output, or throws with the output if it fails. */
  static String run(Path script, Duration timeout, String... args) {
    if (!Files.isExecutable(script)) {
      throw new IllegalStateException(
          "script " + script + " is missing or not executable (is sharegpu.repo.root right?)");
    }
    List<String> command = new ArrayList<>();
    command.add(script.toString());
    command.addAll(List.of(args));
    String name = "testcluster/" + script.getFileName();
    StringBuilder output = new StringBuilder();
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + command, e);
    }
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  log.info("{}", line);
                  synchronized (output) {
                    output.append(line).append('\n');
                  }
                }
              } catch (IOException e) {
                log.warn("stopped reading the output of {}: {}", name, e.toString());
              }
            },
            name + "-output");
    reader.setDaemon(true);
    reader.start();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            name + " did not finish within " + timeout + "; its output:\n" + text(output));
      }
      reader.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException("interrupted while running " + name, e);
    }
    int status = process.exitValue();
    if (status != 0) {
      throw new IllegalStateException(
          name
              + " "
              + String.join(" ", args)
              + " failed with exit status "
              + status
              + ":\n"
              + text(output));
    }
    return text(output);
  }

  private static String text(StringBuilder output) {
    synchronized (output) {
      return output.toString();
    }
  }
}
