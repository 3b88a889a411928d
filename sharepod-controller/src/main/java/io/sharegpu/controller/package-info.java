@NullMarked
package io.sharegpu.controller;

import org.jspecify.annotations.NullMarked;
