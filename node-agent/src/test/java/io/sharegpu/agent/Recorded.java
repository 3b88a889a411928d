package io.sharegpu.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Reads the outputs recorded on a real H200 from {@code src/test/resources/recorded/}. */
public final class Recorded {

  private Recorded() {}

  public static String text(String name) {
    try (InputStream in = Recorded.class.getResourceAsStream("/recorded/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no recording " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Path path(String name) {
    try {
      return Paths.get(Recorded.class.getResource("/recorded/" + name).toURI());
    } catch (Exception e) {
      throw new IllegalArgumentException("no recording " + name, e);
    }
  }
}
