package io.sharegpu.testcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScriptCommandTest {

  @TempDir Path dir;

  private Path script(String body) throws IOException {
    Path script = dir.resolve("script");
    Files.writeString(script, "#!/usr/bin/env bash\n" + body + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script;
  }

  @Test
  void returnsStdoutAndStderrOfASuccessfulScript() throws IOException {
    Path script = script("echo out \"$1\"; echo err >&2");

    assertThat(ScriptCommand.run(script, Duration.ofSeconds(30), "arg"))
        .contains("out arg")
        .contains("err");
  }

  @Test
  void failsWithTheExitStatusAndTheWholeOutput() throws IOException {
    Path script = script("echo first line; echo the reason >&2; exit 3");

    assertThatThrownBy(() -> ScriptCommand.run(script, Duration.ofSeconds(30), "--dir", "x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("testcluster/script --dir x failed with exit status 3")
        .hasMessageContaining("first line")
        .hasMessageContaining("the reason");
  }

  @Test
  void doesNotWaitForBackgroundChildrenThatWriteToFiles() throws IOException {
    Path log = dir.resolve("child.log");
    Path script =
        script(
            "sleep 30 </dev/null >>'"
                + log
                + "' 2>&1 & echo $! > '"
                + dir.resolve("pid")
                + "'; echo started");
    long start = System.nanoTime();

    assertThat(ScriptCommand.run(script, Duration.ofSeconds(20))).contains("started");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    ProcessHandle.of(Long.parseLong(Files.readString(dir.resolve("pid")).trim()))
        .ifPresent(ProcessHandle::destroyForcibly);
  }

  @Test
  void refusesAMissingScript() {
    assertThatThrownBy(() -> ScriptCommand.run(dir.resolve("nope"), Duration.ofSeconds(5)))
        .hasMessageContaining("is missing or not executable");
  }
}
