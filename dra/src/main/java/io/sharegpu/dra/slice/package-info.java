/**
 * GPUNode data (the node agent's inventory) as DRA objects: one ResourceSlice per node with a
 * device per GPU and per MIG instance, and the DeviceClass that selects them. Pure mapping plus one
 * writer.
 */
@NullMarked
package io.sharegpu.dra.slice;

import org.jspecify.annotations.NullMarked;
