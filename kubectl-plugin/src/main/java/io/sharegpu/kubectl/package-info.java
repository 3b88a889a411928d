@NullMarked
package io.sharegpu.kubectl;

import org.jspecify.annotations.NullMarked;
