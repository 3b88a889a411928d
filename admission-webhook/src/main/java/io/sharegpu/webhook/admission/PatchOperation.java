package io.sharegpu.webhook.admission;

/**
 * One JSON Patch (RFC 6902) {@code add} operation. {@code add} on an existing object member
 * replaces it; on an array index path ending in {@code /-} it appends.
 *
 * @param op always {@code "add"}
 * @param path a JSON pointer such as {@code /spec/containers/0/env/-}
 * @param value a fabric8 model object, a list of them, or a string; serialised as JSON
 */
public record PatchOperation(String op, String path, Object value) {

  public PatchOperation {
    if (!op.equals("add")) {
      throw new IllegalArgumentException("only add operations are produced, got " + op);
    }
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must be a JSON pointer, got " + path);
    }
  }

  /** Returns an {@code add} of {@code value} at {@code path}. */
  public static PatchOperation add(String path, Object value) {
    return new PatchOperation("add", path, value);
  }
}
