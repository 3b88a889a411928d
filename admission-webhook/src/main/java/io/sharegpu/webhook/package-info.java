/** The admission webhook application and its configuration. */
@NullMarked
package io.sharegpu.webhook;

import org.jspecify.annotations.NullMarked;
