package io.sharegpu.agent;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

/**
 * The agent's settings, from environment variables (or system properties of the same name in lower
 * case with dots: {@code sharegpu.agent.heartbeat}).
 *
 * @param nodeName {@code NODE_NAME}, required (downward API {@code spec.nodeName})
 * @param heartbeat {@code SHAREGPU_AGENT_HEARTBEAT}, default 30s ({@code 30s}, {@code 2m}, {@code
 *     PT30S})
 * @param mpsPipeDirectory {@code SHAREGPU_AGENT_MPS_PIPE_DIRECTORY}, default /tmp/nvidia-mps
 * @param hostProc {@code SHAREGPU_AGENT_HOST_PROC}, default /proc
 * @param inventoryFile {@code SHAREGPU_AGENT_INVENTORY_FILE}, optional recorded inventory
 * @param metricsPort {@code SHAREGPU_AGENT_METRICS_PORT}, default 9400
 */
public record AgentProperties(
    String nodeName,
    Duration heartbeat,
    Path mpsPipeDirectory,
    Path hostProc,
    Optional<Path> inventoryFile,
    int metricsPort) {

  /**
   * Reads the settings.
   *
   * @throws IllegalArgumentException naming the variable that is missing or malformed
   */
  public static AgentProperties from(Map<String, String> env) {
    String node = get(env, "NODE_NAME", "");
    if (node.isBlank()) {
      throw new IllegalArgumentException(
          "NODE_NAME is not set: give the agent its node's name (downward API fieldRef"
              + " spec.nodeName)");
    }
    Duration heartbeat = duration(get(env, "SHAREGPU_AGENT_HEARTBEAT", "30s"));
    String file = get(env, "SHAREGPU_AGENT_INVENTORY_FILE", "");
    String port = get(env, "SHAREGPU_AGENT_METRICS_PORT", "9400");
    int metricsPort;
    try {
      metricsPort = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("SHAREGPU_AGENT_METRICS_PORT is not a port: " + port, e);
    }
    return new AgentProperties(
        node,
        heartbeat,
        Path.of(get(env, "SHAREGPU_AGENT_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")),
        Path.of(get(env, "SHAREGPU_AGENT_HOST_PROC", "/proc")),
        file.isBlank() ? Optional.empty() : Optional.of(Path.of(file)),
        metricsPort);
  }

  private static String get(Map<String, String> env, String name, String fallback) {
    String property = System.getProperty(name.toLowerCase(java.util.Locale.ROOT).replace('_', '.'));
    if (property != null) {
      return property;
    }
    return env.getOrDefault(name, fallback);
  }

  /** Parses {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h} or ISO-8601 {@code PT30S}. */
  static Duration duration(String value) {
    String v = value.trim();
    try {
      if (v.startsWith("P") || v.startsWith("p")) {
        return positive(Duration.parse(v), value);
      }
      if (v.endsWith("ms")) {
        return positive(Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2))), value);
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1));
      switch (v.charAt(v.length() - 1)) {
        case 's':
          return positive(Duration.ofSeconds(n), value);
        case 'm':
          return positive(Duration.ofMinutes(n), value);
        case 'h':
          return positive(Duration.ofHours(n), value);
        default:
          return positive(Duration.ofSeconds(Long.parseLong(v)), value);
      }
    } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
      throw new IllegalArgumentException(
          "SHAREGPU_AGENT_HEARTBEAT is not a duration (30s, 2m, PT30S): " + value, e);
    }
  }

  private static Duration positive(Duration d, String value) {
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException("SHAREGPU_AGENT_HEARTBEAT must be positive: " + value);
    }
    return d;
  }
}
