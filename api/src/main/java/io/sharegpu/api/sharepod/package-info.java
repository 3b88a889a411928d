@NullMarked
package io.sharegpu.api.sharepod;

import org.jspecify.annotations.NullMarked;
