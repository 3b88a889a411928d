package io.sharegpu.webhook.web;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;

/**
 * Messages for requests the webhook cannot read: they name the place in the request (e.g. {@code
 * spec.containers[0]}) but never a Java type, a library or a stack, unlike the parser's own.
 */
final class ReviewErrors {

  private static final int MAX_KEY = 64;
  private static final int MAX_DEPTH = 12;
  private static final Pattern UID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  private ReviewErrors() {}

  /** Returns true for a review uid the webhook can echo: kube-apiserver sends UUIDs. */
  static boolean isUid(@Nullable String uid) {
    return uid != null && UID.matcher(uid).matches();
  }

  /** Returns true when {@code b} is well-formed UTF-8 (JSON on the wire is UTF-8, RFC 8259). */
  static boolean isUtf8(byte[] b) {
    int i = 0;
    while (i < b.length) {
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        i++;
        continue;
      }
      int need;
      int min;
      if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        min = 0x80;
      } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        min = 0x800;
      } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        min = 0x10000;
      } else {
        return false;
      }
      if (i + need >= b.length) {
        return false;
      }
      int cp = c & (0x3F >> need);
      for (int k = 1; k <= need; k++) {
        int cont = b[i + k] & 0xFF;
        if ((cont & 0xC0) != 0x80) {
          return false;
        }
        cp = (cp << 6) | (cont & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return false;
      }
      i += need + 1;
    }
    return true;
  }

  /** Returns a generic message for a failure to decode JSON. */
  static String describe(JacksonException e) {
    if (e instanceof StreamConstraintsException) {
      return "exceeds a JSON limit (nesting depth, or length of a name, string or number)";
    }
    if (e instanceof StreamReadException) {
      return e.getLocation() == null || e.getLocation().getLineNr() < 0
          ? "malformed JSON"
          : "malformed JSON at line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr();
    }
    StringBuilder sb = new StringBuilder();
    int shown = 0;
    for (JacksonException.Reference r : e.getPath()) {
      if (shown++ == MAX_DEPTH) {
        sb.append("...");
        break;
      }
      String name = r.getPropertyName();
      if (name != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        for (int i = 0; i < name.length() && i < MAX_KEY; i++) {
          char c = name.charAt(i);
          sb.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.length() == 0 ? "wrong type or value" : "wrong type or value at " + sb;
  }
}
