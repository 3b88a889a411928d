/** Writes to the Kubernetes API: the GPUNode status and the Node extended-resource capacity. */
@NullMarked
package io.sharegpu.agent.kube;

import org.jspecify.annotations.NullMarked;
