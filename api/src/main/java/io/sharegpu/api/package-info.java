/**
 * Keys shared by every ShareGPU component: the extended resources users request, the annotations
 * users set and the extender writes, and the environment the containers read.
 */
@NullMarked
package io.sharegpu.api;

import org.jspecify.annotations.NullMarked;
