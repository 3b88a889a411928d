package io.sharegpu.testcluster.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * Seeded generator of hostile request bodies, from a valid-shaped JSON tree ({@link Json}).
 *
 * <p>Structured inputs keep the shape and mutate one to four places in it: a value replaced by
 * null, a wrong type, an absurd number ({@code 1e100}, {@code -1}, {@code NaN}), a very long or odd
 * unicode string, an empty or deeply nested container; a member removed; a key duplicated.
 * Unstructured inputs are random bytes, truncated or bit-flipped JSON, deep nesting, bodies that
 * are not UTF-8, and scalars or trailing garbage where an object belongs. The same seed gives the
 * same sequence, so a failure is reproduced by its seed and try number.
 */
public final class HostileJson {

  /** Strings that would name the implementation if they appeared in an answer. */
  public static final List<String> INTERNALS =
      List.of(
          "java.",
          "javax.",
          "jdk.",
          "sun.",
          "io.fabric8",
          "tools.jackson",
          "com.fasterxml",
          "org.springframework",
          "org.apache",
          "io.sharegpu",
          "Exception",
          "at io.",
          "Caused by",
          ".java:");

  private static final String[] SCALAR_STRINGS = {
    "",
    " ",
    "0",
    "-1",
    "1e100",
    "-1e100",
    "1e-100",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999999999",
    "0x10",
    "\u0661\u0662\u0663",
    "250m",
    "2.5",
    "1Ei",
    "99999999999999999999Ki",
    "9223372036854775808",
    "-9223372036854775809",
    "1.5.5",
    "+",
    "e",
    "m",
    "../../etc/passwd",
    "a/b",
    "%2e%2e%2f",
    "<script>alert(1)</script>",
    "\u0000",
    "\u202e\u200b\ufeff",
    "\ud83d\ude80\ud83d\ude80",
    "GPU-\ud800",
    "sharegpu.io/gpu-milli",
    "H100,,,,",
    ",",
  };

  private static final String[] RAW_NUMBERS = {
    "0",
    "-1",
    "-0",
    "1e100",
    "-1e100",
    "1e-100",
    "1e999999",
    "NaN",
    "Infinity",
    "-Infinity",
    "9223372036854775808",
    "18446744073709551616",
    "123456789012345678901234567890",
    "0.0000001",
    "2147483648",
    "-2147483649",
    "1.0",
    "01",
  };

  private final SplittableRandom random;

  /** Creates a generator; equal seeds give equal sequences. */
  public HostileJson(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** Returns a structured (about 70%) or unstructured hostile body derived from {@code valid}. */
  public byte[] next(Object valid) {
    return random.nextInt(10) < 7 ? structured(valid) : unstructured(valid);
  }

  /** Returns {@code valid} with one to four places mutated, as UTF-8 JSON. */
  public byte[] structured(Object valid) {
    Object tree = Json.copy(valid);
    int mutations = 1 + random.nextInt(4);
    for (int i = 0; i < mutations; i++) {
      tree = mutateSomewhere(tree);
    }
    return Json.write(tree).getBytes(StandardCharsets.UTF_8);
  }

  /** Returns a body that is not the expected JSON at all, or barely. */
  public byte[] unstructured(Object valid) {
    byte[] json = Json.write(valid).getBytes(StandardCharsets.UTF_8);
    switch (random.nextInt(12)) {
      case 0:
        return randomBytes(random.nextInt(2000));
      case 1:
        return java.util.Arrays.copyOf(json, random.nextInt(Math.max(1, json.length)));
      case 2:
        return flipBytes(json);
      case 3:
        return nesting(1 + random.nextInt(20_000));
      case 4:
        return notUtf8(json);
      case 5:
        return pick(
                "",
                " ",
                "\n\t",
                "null",
                "[]",
                "{}",
                "\"Pod\"",
                "123",
                "true",
                "[{}]",
                "{\"Pod\":null}",
                "{\"Pod\":[]}",
                "{\"Pod\":{}}",
                "{\"Pod\":{\"metadata\":null}}")
            .getBytes(StandardCharsets.UTF_8);
      case 6:
        return concat(json, pick("xyz", "}", "]", "{}", ",", "\u0000", " {\"Pod\":1}"));
      case 7:
        return utf16(json);
      case 8:
        return wrapDeep(valid, 1 + random.nextInt(3000));
      case 9:
        return longKeys(valid);
      case 10:
        return manyKeys(1 + random.nextInt(50_000));
      default:
        return structured(valid);
    }
  }

  /** Returns a Content-Type header value, mostly JSON; {@code null} for none. */
  public @Nullable String contentType() {
    int r = random.nextInt(20);
    if (r < 14) {
      return "application/json";
    }
    return pick(
        null,
        "text/plain",
        "application/xml",
        "application/json; charset=ISO-8859-1",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "a/b;;;==",
        "*/*",
        "application/merge-patch+json",
        "application/json; charset=utf-16");
  }

  /** Returns a random element. */
  @SafeVarargs
  public final <T> T pick(T... options) {
    return options[random.nextInt(options.length)];
  }

  /** Returns a random int in [0, bound). */
  public int nextInt(int bound) {
    return random.nextInt(bound);
  }

  /** Returns a hostile scalar or small structure to put where any value belongs. */
  public @Nullable Object hostileValue() {
    switch (random.nextInt(14)) {
      case 0:
        return null;
      case 1:
        return random.nextBoolean();
      case 2:
        return new Json.Raw(pick(RAW_NUMBERS));
      case 3:
      case 4:
        return pick(SCALAR_STRINGS);
      case 5:
        return longString(1 + random.nextInt(70_000));
      case 6:
        return unicodeString(1 + random.nextInt(300));
      case 7:
        return Json.obj();
      case 8:
        return new ArrayList<>();
      case 9:
        return deepArray(1 + random.nextInt(2000));
      case 10:
        List<Object> list = new ArrayList<>();
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
          list.add(random.nextBoolean() ? null : pick(SCALAR_STRINGS));
        }
        return list;
      case 11:
        return Json.obj("metadata", null, "name", pick(SCALAR_STRINGS));
      case 12:
        return Json.obj("amount", "1", "format", "");
      default:
        return (long) random.nextInt() * (random.nextBoolean() ? 1 : -1);
    }
  }

  /** Returns a name-like string: valid, very long, odd characters or unicode. */
  public String hostileName() {
    switch (random.nextInt(6)) {
      case 0:
        return longString(1 + random.nextInt(5000));
      case 1:
        return unicodeString(1 + random.nextInt(64));
      case 2:
        return pick(SCALAR_STRINGS);
      default:
        return "p" + random.nextInt(50);
    }
  }

  private Object mutateSomewhere(Object root) {
    List<Object> containers = new ArrayList<>();
    Json.collectContainers(root, containers);
    if (containers.isEmpty() || random.nextInt(20) == 0) {
      return replaceRoot();
    }
    Object target = containers.get(random.nextInt(containers.size()));
    if (target instanceof Json.Obj obj) {
      mutateObject(obj);
    } else if (target instanceof List<?> raw) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) raw;
      mutateList(list);
    }
    return root;
  }

  private Object replaceRoot() {
    Object v = hostileValue();
    return v == null ? Json.NULL : v;
  }

  private void mutateObject(Json.Obj obj) {
    int op = random.nextInt(10);
    if (obj.members().isEmpty() || op == 0) {
      obj.members().add(new Json.Member(pick("Pod", "metadata", "spec", "x", ""), hostileValue()));
      return;
    }
    Json.Member m = obj.members().get(random.nextInt(obj.members().size()));
    if (op == 1) {
      obj.members().remove(m);
    } else if (op == 2) {
      // the same key twice: Jackson keeps the last, other parsers the first
      obj.members().add(new Json.Member(m.key(), hostileValue()));
    } else if (op == 3) {
      m.setKey(random.nextBoolean() ? longString(1 + random.nextInt(3000)) : unicodeString(8));
    } else {
      m.setValue(hostileValue());
    }
  }

  private void mutateList(List<Object> list) {
    int op = random.nextInt(6);
    if (list.isEmpty() || op == 0) {
      list.add(hostileValue());
    } else if (op == 1) {
      list.remove(random.nextInt(list.size()));
    } else if (op == 2) {
      Object copy = Json.copy(list.get(random.nextInt(list.size())));
      int n = 1 + random.nextInt(200);
      for (int i = 0; i < n; i++) {
        list.add(copy);
      }
    } else {
      list.set(random.nextInt(list.size()), hostileValue());
    }
  }

  private String longString(int length) {
    char c = pick('a', 'x', '9', '-', '.', '\u00e9');
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(c);
    }
    return sb.toString();
  }

  private String unicodeString(int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      int kind = random.nextInt(6);
      if (kind == 0) {
        sb.append((char) random.nextInt(0x20)); // control characters
      } else if (kind == 1) {
        sb.append((char) (0xD800 + random.nextInt(0x800))); // lone surrogates
      } else if (kind == 2) {
        sb.appendCodePoint(0x1F300 + random.nextInt(0x300)); // emoji
      } else if (kind == 3) {
        sb.append(pick('\u202e', '\u200b', '\ufeff', '\uffff', '"', '\\', '/'));
      } else {
        sb.append((char) ('a' + random.nextInt(26)));
      }
    }
    return sb.toString();
  }

  private Object deepArray(int depth) {
    Object v = new ArrayList<>();
    for (int i = 0; i < depth; i++) {
      List<Object> outer = new ArrayList<>();
      outer.add(v);
      v = outer;
    }
    return v;
  }

  private byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) random.nextInt(256);
    }
    return b;
  }

  private byte[] flipBytes(byte[] json) {
    byte[] b = json.clone();
    int n = 1 + random.nextInt(5);
    for (int i = 0; i < n && b.length > 0; i++) {
      b[random.nextInt(b.length)] = (byte) random.nextInt(256);
    }
    return b;
  }

  private byte[] nesting(int depth) {
    boolean arrays = random.nextBoolean();
    StringBuilder sb = new StringBuilder(depth * 6);
    for (int i = 0; i < depth; i++) {
      sb.append(arrays ? "[" : "{\"Pod\":");
    }
    if (random.nextBoolean()) {
      sb.append("1");
      for (int i = 0; i < depth; i++) {
        sb.append(arrays ? "]" : "}");
      }
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private byte[] wrapDeep(Object valid, int depth) {
    Object tree = Json.copy(valid);
    List<Object> containers = new ArrayList<>();
    Json.collectContainers(tree, containers);
    if (containers.isEmpty()) {
      return nesting(depth);
    }
    Object target = containers.get(random.nextInt(containers.size()));
    Object deep = deepArray(depth);
    if (target instanceof Json.Obj obj && !obj.members().isEmpty()) {
      obj.members().get(random.nextInt(obj.members().size())).setValue(deep);
    } else if (target instanceof List<?> raw) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) raw;
      list.add(deep);
    }
    return Json.write(tree).getBytes(StandardCharsets.UTF_8);
  }

  private byte[] longKeys(Object valid) {
    Object tree = Json.copy(valid);
    List<Object> containers = new ArrayList<>();
    Json.collectContainers(tree, containers);
    for (Object c : containers) {
      if (c instanceof Json.Obj obj && random.nextBoolean()) {
        obj.members().add(new Json.Member(longString(10_000 + random.nextInt(100_000)), "v"));
      }
    }
    return Json.write(tree).getBytes(StandardCharsets.UTF_8);
  }

  private byte[] manyKeys(int n) {
    StringBuilder sb = new StringBuilder(n * 10);
    sb.append("{\"Pod\":{\"metadata\":{\"annotations\":{");
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append("\"k").append(i).append("\":\"v\"");
    }
    sb.append("}}},\"NodeNames\":[\"h100\"]}");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private byte[] notUtf8(byte[] json) {
    byte[] bad =
        pick(
            new byte[] {(byte) 0xC3, (byte) 0x28},
            new byte[] {(byte) 0xFF},
            new byte[] {(byte) 0xC0, (byte) 0xAF},
            new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            new byte[] {(byte) 0xE9},
            new byte[] {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80});
    // inside the first string value, so that the JSON is otherwise well formed
    int quote = indexOf(json, (byte) '"', 0);
    int at = quote < 0 ? 0 : quote + 1;
    ByteArrayOutputStream out = new ByteArrayOutputStream(json.length + bad.length);
    out.write(json, 0, at);
    out.write(bad, 0, bad.length);
    out.write(json, at, json.length - at);
    return out.toByteArray();
  }

  private byte[] utf16(byte[] json) {
    String s = new String(json, StandardCharsets.UTF_8);
    return random.nextBoolean()
        ? s.getBytes(StandardCharsets.UTF_16)
        : s.getBytes(StandardCharsets.UTF_16LE);
  }

  private static byte[] concat(byte[] a, String b) {
    byte[] tail = b.getBytes(StandardCharsets.UTF_8);
    byte[] out = java.util.Arrays.copyOf(a, a.length + tail.length);
    System.arraycopy(tail, 0, out, a.length, tail.length);
    return out;
  }

  private static int indexOf(byte[] b, byte value, int from) {
    for (int i = from; i < b.length; i++) {
      if (b[i] == value) {
        return i;
      }
    }
    return -1;
  }

  /** Returns the first {@code max} characters of a body, for a failure message. */
  public static String preview(byte[] body, int max) {
    String s = new String(body, 0, Math.min(body.length, max * 4), StandardCharsets.UTF_8);
    s = s.length() > max ? s.substring(0, max) + "... (" + body.length + " bytes)" : s;
    return s.replace("\n", "\\n");
  }

  /** Returns the first internal name found in {@code answer} that {@code request} lacks. */
  public static @Nullable String leakedInternal(String answer, byte[] request) {
    String in = new String(request, StandardCharsets.ISO_8859_1);
    for (String token : INTERNALS) {
      if (answer.contains(token) && !in.contains(token)) {
        return token;
      }
    }
    return null;
  }
}
