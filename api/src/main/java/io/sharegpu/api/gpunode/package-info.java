@NullMarked
package io.sharegpu.api.gpunode;

import org.jspecify.annotations.NullMarked;
