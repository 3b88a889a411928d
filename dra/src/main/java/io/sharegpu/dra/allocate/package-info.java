/**
 * ShareGPU's placement instead of DRA's first-fit: the ledger is built from the ResourceSlices and
 * the claims already allocated, a pod's claims become one {@code PodDemand}, {@code core}'s {@code
 * Placement} chooses node and GPUs, and the claims' {@code status.allocation} is written before
 * kube-scheduler sees the pod (a scheduling gate holds it until then).
 */
@NullMarked
package io.sharegpu.dra.allocate;

import org.jspecify.annotations.NullMarked;
