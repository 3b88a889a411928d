/** What a pod asks for: the GPU demand of each of its containers and its placement constraints. */
@NullMarked
package io.sharegpu.core.request;

import org.jspecify.annotations.NullMarked;
