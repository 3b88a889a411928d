@NullMarked
package io.sharegpu.controller.model;

import org.jspecify.annotations.NullMarked;
