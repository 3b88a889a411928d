/**
 * ShareGPU on Dynamic Resource Allocation ({@code resource.k8s.io/v1}): the names our
 * ResourceSlices, DeviceClass and claims share ({@link io.sharegpu.dra.DraNames}), the slices built
 * from GPUNode data ({@code slice}) and ShareGPU's placement as the allocator of ResourceClaims
 * ({@code allocate}). A prototype: see docs/dra.md.
 */
@NullMarked
package io.sharegpu.dra;

import org.jspecify.annotations.NullMarked;
