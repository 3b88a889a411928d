package io.sharegpu.agent.gpu;

/**
 * A source of the node's GPU inventory: NVML, nvidia-smi or a recorded file. Each call looks again,
 * so GPUs appearing, disappearing or being repartitioned show up in the next snapshot.
 */
public interface GpuInventory extends AutoCloseable {

  /**
   * Returns the GPUs and their compute processes now. A GPU whose queries fail is listed with
   * {@code healthy = false}; only a failure of the whole source throws.
   *
   * @throws GpuDiscoveryException when the source cannot be read at all
   */
  GpuSnapshot snapshot();

  /**
   * Returns a short name of the source for logs and the printed inventory: nvml, nvidia-smi, file.
   */
  String source();

  @Override
  default void close() {}
}
