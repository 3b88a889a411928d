@NullMarked
package io.sharegpu.controller.reconcile;

import org.jspecify.annotations.NullMarked;
