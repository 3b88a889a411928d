@NullMarked
package io.sharegpu.api.assignment;

import org.jspecify.annotations.NullMarked;
