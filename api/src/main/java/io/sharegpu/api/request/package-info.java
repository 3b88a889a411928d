@NullMarked
package io.sharegpu.api.request;

import org.jspecify.annotations.NullMarked;
