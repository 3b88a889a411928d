@NullMarked
package io.sharegpu.kubectl.report;

import org.jspecify.annotations.NullMarked;
