/** Pure admission decisions for pods: deny, allow, or the JSON Patch to apply. */
@NullMarked
package io.sharegpu.webhook.admission;

import org.jspecify.annotations.NullMarked;
