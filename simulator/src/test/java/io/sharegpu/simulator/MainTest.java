package io.sharegpu.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void usageErrorsExitWith2() {
    assertThat(run()).isEqualTo(2);
    assertThat(run("replay", "--nodes")).isEqualTo(2);
    assertThat(run("replay", "--nodes", "x", "--pods", "y", "--policy", "nope")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("unknown placement policy 'nope'; valid: sharegpu, binpack, spread, random")
        .contains("usage:");
  }

  @Test
  void misspeltPolicyStopsHeapAndLatencyBeforeAnyWork() {
    assertThat(run("heap", "--policy", "sharegp")).isEqualTo(2);
    assertThat(run("latency", "--policy", "binpak")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("unknown placement policy 'sharegp'; valid: sharegpu, binpack, spread")
        .contains("unknown placement policy 'binpak'; valid: sharegpu, binpack, spread");
  }

  @Test
  void missingFileExitsWith1() {
    assertThat(run("replay", "--nodes", "/nonexistent.csv", "--pods", "/x.csv", "--policy", "fgd"))
        .isEqualTo(1);
  }

  @Test
  void replayWritesTableJsonAndPlot(@TempDir Path dir) throws IOException {
    Path json = dir.resolve("r.json");
    Path png = dir.resolve("r.png");
    int rc =
        run(
            "replay",
            "--nodes",
            TraceFilesTest.fixture("nodes.csv").toString(),
            "--pods",
            TraceFilesTest.fixture("pods.csv").toString(),
            "--policy",
            "bestfit,sharegpu",
            "--seeds",
            "42-43",
            "--threads",
            "2",
            "--json",
            json.toString(),
            "--plot",
            png.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("bestfit").contains("sharegpu");
    String j = Files.readString(json);
    assertThat(j)
        .contains("\"policy\": \"bestfit\"")
        .contains("\"pods\": \"pods.csv\"")
        .contains("\"seeds\": [42, 43]")
        .contains("\"unallocatedGpuPctAt100\": {")
        .contains("\"allocationRatioPctAt100\"")
        .contains("\"fragmentationRatePctAt80\"")
        .contains("\"perSeed\"");
    byte[] head = Files.readAllBytes(png);
    assertThat(head[1]).isEqualTo((byte) 'P');
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("[4/4]");
  }

  @Test
  void compareCopiesListsIntoOneTableOfPoliciesAndAPlot(@TempDir Path dir) throws IOException {
    Path pods = TraceFilesTest.fixture("pods.csv");
    Path other = dir.resolve("openb_pod_list_other.csv");
    Files.copy(pods, other);
    Path png = dir.resolve("c.png");
    Path json = dir.resolve("c.json");
    int rc =
        run(
            "compare",
            "--nodes",
            TraceFilesTest.fixture("nodes.csv").toString(),
            "--pods",
            pods + "," + other,
            "--policy",
            "fgd,gpushare,kubeshare",
            "--seeds",
            "42-43",
            "--threads",
            "2",
            "--json",
            json.toString(),
            "--plot",
            png.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    String table = out.toString(StandardCharsets.UTF_8);
    assertThat(table)
        .contains("| policy | pods | other |")
        .containsPattern("\\| fgd \\| [0-9.]+ ± [0-9.]+ \\| [0-9.]+ ± [0-9.]+ \\|")
        .contains("| gpushare |")
        .contains("| kubeshare |")
        .contains("GPUs no pod holds");
    assertThat(Files.readString(json))
        .contains("\"emptyGpuPctAt100\"")
        .contains("\"nodesTouchedAt50\"");
    assertThat(Files.readAllBytes(png)[1]).isEqualTo((byte) 'P');
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("[12/12]");
  }

  @Test
  void compareFromSavedRunsMergesPartsIntoTheSameTable(@TempDir Path dir) throws IOException {
    Path nodes = TraceFilesTest.fixture("nodes.csv");
    Path pods = TraceFilesTest.fixture("pods.csv");
    Path whole = dir.resolve("whole.json");
    assertThat(
            run(
                "compare",
                "--nodes",
                nodes.toString(),
                "--pods",
                pods.toString(),
                "--policy",
                "bestfit,fgd",
                "--seeds",
                "42-43",
                "--json",
                whole.toString()))
        .isZero();
    String wholeTable = tables(out.toString(StandardCharsets.UTF_8));
    // the same matrix in three parts: the other seed, and another policy named after fgd (the
    // merged table puts the policies in the order of --policy all: bestfit before fgd)
    Path a = dir.resolve("a.json");
    Path b = dir.resolve("b.json");
    Path c = dir.resolve("c.json");
    run(
        "compare",
        "--nodes",
        nodes.toString(),
        "--pods",
        pods.toString(),
        "--policy",
        "fgd",
        "--seeds",
        "42",
        "--json",
        a.toString());
    run(
        "compare",
        "--nodes",
        nodes.toString(),
        "--pods",
        pods.toString(),
        "--policy",
        "fgd",
        "--seeds",
        "43",
        "--json",
        b.toString());
    run(
        "compare",
        "--nodes",
        nodes.toString(),
        "--pods",
        pods.toString(),
        "--policy",
        "bestfit",
        "--seeds",
        "42-43",
        "--json",
        c.toString());
    out.reset();
    Path png = dir.resolve("merged.png");
    int rc = run("compare", "--from", a + "," + b + "," + c, "--plot", png.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    String merged = out.toString(StandardCharsets.UTF_8);
    assertThat(merged).contains("2 policies x 1 lists, 2 seeds per cell");
    assertThat(tables(merged)).isEqualTo(wholeTable);
    assertThat(Files.readAllBytes(png)[1]).isEqualTo((byte) 'P');
    // a seed saved twice with other figures is an error, not a silent pick
    Files.writeString(
        b,
        Files.readString(a)
            .replaceAll(
                "\"unallocatedGpuPctAt100\": [0-9.]+", "\"unallocatedGpuPctAt100\": 99.0000"));
    assertThat(run("compare", "--from", a + "," + b)).isNotZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("differs between the files");
  }

  /** The output from the first table on (the header line names the run). */
  private static String tables(String output) {
    return output.substring(output.indexOf("Unallocated GPU %"));
  }

  @Test
  void mixWritesPoolRowsWithTheColumnsOfThePodList(@TempDir Path dir) throws IOException {
    Path five = dir.resolve("five.csv");
    Files.writeString(
        five,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\ng-1,8000,16384,2,1000\nc-1,2000,4096,0,0\n");
    Path mixed = dir.resolve("mix.csv");
    int rc =
        run(
            "mix",
            "--pods",
            five.toString(),
            "--cpu-pool",
            TraceFilesTest.fixture("pods.csv").toString(),
            "--cpu-share",
            "0.5",
            "--out",
            mixed.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    List<String> lines = Files.readAllLines(mixed);
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).isEqualTo("name,cpu_milli,memory_mib,num_gpu,gpu_milli");
    assertThat(lines.get(2).split(",", -1)).hasSize(5);
    assertThat(lines.get(2).split(",", -1)[3]).isEqualTo("0");
    // the other way round the pool lacks columns the list has: a clear error
    int bad =
        run(
            "mix",
            "--pods",
            TraceFilesTest.fixture("pods.csv").toString(),
            "--cpu-pool",
            five.toString(),
            "--cpu-share",
            "0.5",
            "--out",
            dir.resolve("bad.csv").toString());
    assertThat(bad).isNotZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("has no column");
  }

  @Test
  void mixDrawsPodsWithoutGpusToTheAskedShareByCount(@TempDir Path dir) throws IOException {
    Path mixed = dir.resolve("mix.csv");
    int rc =
        run(
            "mix",
            "--pods",
            TraceFilesTest.fixture("pods.csv").toString(),
            "--cpu-share",
            "0.5",
            "--seed",
            "3",
            "--out",
            mixed.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    var rows = TraceFiles.readPods(mixed);
    long cpuOnly = rows.stream().filter(p -> p.numGpu() == 0).count();
    long withGpu = rows.stream().filter(p -> p.numGpu() > 0).count();
    assertThat(withGpu)
        .isEqualTo(
            TraceFiles.readPods(TraceFilesTest.fixture("pods.csv")).stream()
                .filter(p -> p.numGpu() > 0)
                .count());
    assertThat(cpuOnly).isEqualTo(withGpu);
  }

  @Test
  void plotDrawsTheLatencyScaleCurveFromLatencyRunsAtSeveralSizes(@TempDir Path dir)
      throws IOException {
    String[] sizes = {"60", "20"};
    StringBuilder files = new StringBuilder();
    for (String n : sizes) {
      Path json = dir.resolve("l" + n + ".json");
      int rc =
          run(
              "latency",
              "--nodes",
              n,
              "--gpus-per-node",
              "4",
              "--iterations",
              "40",
              "--json",
              json.toString());
      assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
      files.append(files.length() == 0 ? "" : ",").append(json);
    }
    Path png = dir.resolve("scale.png");
    assertThat(run("plot", "--json", files.toString(), "--out", png.toString()))
        .as(err.toString(StandardCharsets.UTF_8))
        .isZero();
    java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
    assertThat(img).isNotNull();
    assertThat(img.getWidth()).isGreaterThan(100);

    LatencyScalePlot.Point p =
        LatencyScalePlot.read(Files.readString(dir.resolve("l20.json")), "l20.json");
    assertThat(p.nodes()).isEqualTo(20);
    assertThat(p.gpusPerNode()).isEqualTo(4);
    assertThat(p.fill()).isEqualTo("synthetic");
    assertThat(p.millis()[1]).isGreaterThanOrEqualTo(p.millis()[0]).isPositive();
  }

  @Test
  void plotRefusesReplayAndLatencyFilesTogether(@TempDir Path dir) throws IOException {
    Path lat = dir.resolve("l.json");
    assertThat(run("latency", "--nodes", "10", "--iterations", "20", "--json", lat.toString()))
        .isZero();
    Path replay = dir.resolve("r.json");
    Files.writeString(
        replay, "{\"results\": [{\"policy\": \"fgd\", \"unallocatedPct\": [1.0, 2.0]}]}");
    assertThat(run("plot", "--json", lat + "," + replay, "--out", dir.resolve("x.png").toString()))
        .isEqualTo(2);
  }

  @Test
  void latencyWritesPercentiles(@TempDir Path dir) throws IOException {
    Path json = dir.resolve("l.json");
    int rc =
        run(
            "latency",
            "--nodes",
            "50",
            "--gpus-per-node",
            "4",
            "--iterations",
            "50",
            "--json",
            json.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(Files.readString(json))
        .contains("\"inProcess\"")
        .contains("\"p50Micros\"")
        .contains("\"p99Micros\"")
        .contains("\"maxMicros\"");
  }

  @Test
  void latencyDistinctFillPutsEveryNodeInAStateOfItsOwn(@TempDir Path dir) throws IOException {
    Path json = dir.resolve("l.json");
    int rc =
        run(
            "latency",
            "--nodes",
            "40",
            "--iterations",
            "20",
            "--fill",
            "distinct",
            "--request",
            "share:250:1000",
            "--json",
            json.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(Files.readString(json))
        .contains("\"fill\": \"distinct\"")
        .contains("\"stateClasses\": 40")
        .contains("\"meanMicros\"");
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("(40 node states)");
  }

  @Test
  void latencyTraceFillPlacesTracePodsToTheOccupancy() {
    int rc =
        run(
            "latency",
            "--nodes",
            "10",
            "--gpus-per-node",
            "4",
            "--iterations",
            "20",
            "--occupancy",
            "50",
            "--fill",
            "trace:" + TraceFilesTest.fixture("pods.csv"),
            "--request",
            "whole:1");
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .containsPattern("fill trace:\\S+ 5\\d\\.\\d% occupied");
  }

  @Test
  void latencyRejectsAnUnknownFillOrRequest() {
    assertThat(run("latency", "--fill", "full")).isEqualTo(2);
    assertThat(run("latency", "--request", "share:1000:0")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--fill must be synthetic, trace:FILE or distinct, got 'full'")
        .contains("--request must be mix");
  }

  @Test
  void heapFillsTheLedgerAndReportsTheHeapInUse(@TempDir Path dir) throws IOException {
    Path json = dir.resolve("h.json");
    int rc =
        run(
            "heap",
            "--nodes",
            "20",
            "--gpus-per-node",
            "4",
            "--pods",
            "120",
            "--json",
            json.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(Files.readString(json))
        .contains("\"pods\": 120")
        .contains("\"gpus\": 80")
        .contains("\"heapUsedMiB\"");
  }

  @Test
  void heapRefusesMoreThanTenPodsPerGpu() {
    assertThat(run("heap", "--nodes", "1", "--gpus-per-node", "1", "--pods", "11")).isEqualTo(2);
  }
}
