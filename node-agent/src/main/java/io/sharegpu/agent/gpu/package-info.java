/** GPU discovery: NVML through JNA, the nvidia-smi fallback and recorded inventories. */
@NullMarked
package io.sharegpu.agent.gpu;

import org.jspecify.annotations.NullMarked;
