package io.sharegpu.kubectl.command;

import java.time.Duration;

/** Lets tests in other packages reach the drain's duration converter. */
public final class DrainCommandAccess {
  public Duration convert(String value) {
    return new DrainCommand.DurationConverter().convert(value);
  }
}
