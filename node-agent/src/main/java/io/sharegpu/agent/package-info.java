/** The node agent: configuration, the report loop and its HTTP endpoint. */
@NullMarked
package io.sharegpu.agent;

import org.jspecify.annotations.NullMarked;
