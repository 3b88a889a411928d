package io.sharegpu.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceFilesTest {

  static Path fixture(String name) {
    try {
      return Path.of(TraceFilesTest.class.getResource("/trace/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void readsNodes() throws IOException {
    List<TraceNode> nodes = TraceFiles.readNodes(fixture("nodes.csv"));
    assertThat(nodes)
        .containsExactly(
            new TraceNode("n-0", 32000, 131072, 2, "T4"),
            new TraceNode("n-1", 16000, 65536, 1, "P100"),
            new TraceNode("n-2", 8000, 32768, 0, ""));
  }

  @Test
  void readsFullPodRows() throws IOException {
    List<TracePod> pods = TraceFiles.readPods(fixture("pods.csv"));
    assertThat(pods).hasSize(4);
    assertThat(pods.get(0)).isEqualTo(new TracePod("p-3", 4000, 8192, 1, 500, Set.of()));
    assertThat(pods.get(1).models()).containsExactly("t4");
    assertThat(pods.get(2).gpuRequestMilli()).isZero();
    assertThat(pods.get(3).models()).containsExactlyInAnyOrder("v100m16", "v100m32");
  }

  @Test
  void readsFiveColumnPodLists() throws IOException {
    List<TracePod> pods = TraceFiles.readPods(fixture("pods-short.csv"));
    assertThat(pods.get(0).gpuRequestMilli()).isEqualTo(2000);
    assertThat(pods.get(1).models()).isEmpty();
  }

  @Test
  void rejectsInconsistentRowsWithFileAndLine() {
    assertThatThrownBy(() -> TraceFiles.readPods(fixture("bad.csv")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("bad.csv line 2")
        .hasMessageContaining("must be whole");
  }

  @Test
  void rejectsMissingColumns(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("x.csv");
    Files.writeString(f, "sn,cpu_milli,gpu\nn,1,1\n");
    assertThatThrownBy(() -> TraceFiles.readNodes(f))
        .hasMessageContaining("lacks column 'memory_mib'");
    Path g = dir.resolve("y.csv");
    Files.writeString(g, "sn,cpu_milli,memory_mib,gpu,model\nn,abc,1,1,T4\n");
    assertThatThrownBy(() -> TraceFiles.readNodes(g))
        .hasMessageContaining("line 2")
        .hasMessageContaining("'abc'");
  }
}
