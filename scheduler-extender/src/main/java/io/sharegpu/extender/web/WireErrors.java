package io.sharegpu.extender.web;

import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;

/**
 * Turns a decoding failure into a message for the caller that names the place in the request (e.g.
 * {@code Pod.spec.containers[0].resources}) but never a Java type, a library or a stack: the
 * parser's own messages name both, and they are what a scanner looks for.
 */
final class WireErrors {

  /** At most this many characters of one key of the request are echoed back. */
  private static final int MAX_KEY = 64;

  /** At most this many path elements are echoed back. */
  private static final int MAX_DEPTH = 12;

  private WireErrors() {}

  /** Returns a generic message for a failure to decode a request body. */
  static String describe(Throwable failure) {
    JacksonException e = jackson(failure);
    if (e == null) {
      return "malformed JSON";
    }
    if (e instanceof StreamConstraintsException) {
      return "request body exceeds a JSON limit (nesting depth, or length of a name, string or"
          + " number)";
    }
    String path = path(e.getPath());
    if (e instanceof StreamReadException) {
      TokenStreamLocation at = e.getLocation();
      return at == null || at.getLineNr() < 0
          ? "malformed JSON"
          : "malformed JSON at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }
    return path.isEmpty() ? "wrong type or value in the request" : "wrong type or value at " + path;
  }

  private static @Nullable JacksonException jackson(Throwable failure) {
    Throwable t = failure;
    for (int i = 0; t != null && i < 10; i++) {
      if (t instanceof JacksonException j) {
        return j;
      }
      t = t.getCause();
    }
    return null;
  }

  /** Returns {@code Pod.spec.containers[0]} for a reference path. */
  static String path(List<JacksonException.Reference> refs) {
    StringBuilder sb = new StringBuilder();
    int shown = 0;
    for (JacksonException.Reference r : refs) {
      if (shown++ == MAX_DEPTH) {
        sb.append("...");
        break;
      }
      String name = r.getPropertyName();
      if (name != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(safe(name));
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  /** Returns {@code key} cut to {@link #MAX_KEY} characters, printable ASCII only. */
  static String safe(String key) {
    StringBuilder sb = new StringBuilder(Math.min(key.length(), MAX_KEY));
    for (int i = 0; i < key.length() && sb.length() < MAX_KEY; i++) {
      char c = key.charAt(i);
      sb.append(c >= 0x20 && c < 0x7F ? c : '?');
    }
    if (key.length() > MAX_KEY) {
      sb.append("...");
    }
    return sb.toString();
  }
}
