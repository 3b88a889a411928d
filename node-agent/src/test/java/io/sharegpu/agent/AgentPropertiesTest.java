package io.sharegpu.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AgentPropertiesTest {

  @Test
  void defaults() {
    AgentProperties props = AgentProperties.from(Map.of("NODE_NAME", "gpu-1"));

    assertThat(props)
        .isEqualTo(
            new AgentProperties(
                "gpu-1",
                Duration.ofSeconds(30),
                Path.of("/tmp/nvidia-mps"),
                Path.of("/proc"),
                Optional.empty(),
                9400));
  }

  @Test
  void readsEveryVariable() {
    AgentProperties props =
        AgentProperties.from(
            Map.of(
                "NODE_NAME", "gpu-2",
                "SHAREGPU_AGENT_HEARTBEAT", "2m",
                "SHAREGPU_AGENT_MPS_PIPE_DIRECTORY", "/run/mps",
                "SHAREGPU_AGENT_HOST_PROC", "/host/proc",
                "SHAREGPU_AGENT_INVENTORY_FILE", "/data/inventory.json",
                "SHAREGPU_AGENT_METRICS_PORT", "9500"));

    assertThat(props.heartbeat()).isEqualTo(Duration.ofMinutes(2));
    assertThat(props.mpsPipeDirectory()).isEqualTo(Path.of("/run/mps"));
    assertThat(props.hostProc()).isEqualTo(Path.of("/host/proc"));
    assertThat(props.inventoryFile()).contains(Path.of("/data/inventory.json"));
    assertThat(props.metricsPort()).isEqualTo(9500);
  }

  @Test
  void missingNodeNameIsAClearError() {
    assertThatThrownBy(() -> AgentProperties.from(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NODE_NAME is not set");
  }

  @ParameterizedTest
  @CsvSource({"30s,30000", "500ms,500", "2m,120000", "1h,3600000", "PT45S,45000", "15,15000"})
  void parsesDurations(String text, long millis) {
    assertThat(AgentProperties.duration(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "soon", "0s", "-5s", "PT0S"})
  void rejectsBadHeartbeats(String text) {
    assertThatThrownBy(() -> AgentProperties.duration(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SHAREGPU_AGENT_HEARTBEAT");
  }
}
