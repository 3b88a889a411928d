package io.sharegpu.agent.gpu;

/** Thrown when a GPU inventory source cannot be used at all (no library, no tool, bad file). */
public class GpuDiscoveryException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public GpuDiscoveryException(String message) {
    super(message);
  }

  public GpuDiscoveryException(String message, Throwable cause) {
    super(message, cause);
  }
}
