@NullMarked
package io.sharegpu.kubectl.command;

import org.jspecify.annotations.NullMarked;
