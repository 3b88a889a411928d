@NullMarked
package io.sharegpu.kubectl.render;

import org.jspecify.annotations.NullMarked;
