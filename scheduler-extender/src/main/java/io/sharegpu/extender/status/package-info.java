/** The extender's allocation summary in each GPUNode's status, for {@code kubectl get gpunodes}. */
@NullMarked
package io.sharegpu.extender.status;

import org.jspecify.annotations.NullMarked;
