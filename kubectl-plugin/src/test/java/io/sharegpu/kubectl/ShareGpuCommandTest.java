package io.sharegpu.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharegpu.kubectl.render.Style;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ShareGpuCommandTest {

  record Result(int status, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = ShareGpuCommand.run(new PrintWriter(out), new PrintWriter(err), Style.PLAIN, args);
    return new Result(status, out.toString(), err.toString());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"nodes", "pods", "explain", "cordon", "uncordon", "drain", "top", "completion"})
  void everyCommandHasHelp(String command) {
    Result r = run(command, "--help");
    assertThat(r.status()).isZero();
    assertThat(r.out()).startsWith("Usage: kubectl sharegpu " + command);
    assertThat(r.out()).doesNotContain("\u001b[");
    if (!command.equals("completion")) {
      assertThat(r.out()).contains("--kubeconfig=FILE", "--context=NAME");
    }
  }

  @Test
  void topLevelHelpListsTheCommands() {
    Result r = run("--help");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("nodes", "pods", "explain", "cordon", "uncordon", "drain", "top");
  }

  @Test
  void theTrainingRunForTheLaunchersCachePrintsNothingAndNeedsNoCluster() {
    Result r = run("__train");
    assertThat(r.status()).isZero();
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEmpty();
    assertThat(run("--help").out()).doesNotContain("__train");
  }

  @Test
  void completionScriptsCompleteTheCommands() {
    Result bash = run("completion", "bash");
    assertThat(bash.status()).isZero();
    assertThat(bash.out()).contains("complete -F").contains("kubectl-sharegpu").contains("drain");
    Result zsh = run("completion", "zsh");
    assertThat(zsh.out())
        .startsWith("autoload -U +X compinit && compinit\n")
        .contains("bashcompinit");
  }

  @Test
  void kubectlPluginCompletionAnswersCommandsOptionsAndOptionValues() {
    assertThat(run("__complete", "c").out()).isEqualTo("cordon\ncompletion\n:4\n");
    assertThat(run("__complete", "").out()).startsWith("nodes\npods\n").doesNotContain("__train");
    assertThat(run("__complete", "nodes", "-o", "w").out()).isEqualTo("wide\n:4\n");
    assertThat(run("__complete", "pods", "--kube").out()).isEqualTo("--kubeconfig\n:4\n");
    assertThat(run("__complete", "completion", "z").out()).isEqualTo(":4\n");
  }

  @Test
  void wrongUsageExitsWithTwoAndSaysWhy() {
    Result r = run("cordon");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("Missing required parameter: 'GPU-UUID'");
    assertThat(run("nodes", "-o", "xml").err()).contains("Invalid value for option '--output'");
  }

  @Test
  void anUnreachableApiServerIsOneLineNotAStackTrace() {
    Result r =
        run(
            "nodes",
            "--kubeconfig",
            kubeconfigFor("https://127.0.0.1:1").toString(),
            "--request-timeout",
            "5");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: cannot reach the API server").doesNotContain("\tat ");
    assertThat(r.err().lines().toList()).hasSize(1);
  }

  @Test
  void readsDurationsWithUnits() {
    var c = new io.sharegpu.kubectl.command.DrainCommandAccess();
    assertThat(List.of(c.convert("90"), c.convert("90s"), c.convert("2m"), c.convert("PT1H")))
        .containsExactly(
            Duration.ofSeconds(90),
            Duration.ofSeconds(90),
            Duration.ofMinutes(2),
            Duration.ofHours(1));
  }

  static java.nio.file.Path kubeconfigFor(String server) {
    try {
      java.nio.file.Path f = java.nio.file.Files.createTempFile("kubeconfig", ".yaml");
      java.nio.file.Files.writeString(
          f,
          """
          apiVersion: v1
          kind: Config
          clusters: [{name: c, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
          users: [{name: u, user: {token: t}}]
          contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]
          current-context: x
          """
              .formatted(server));
      return f;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
