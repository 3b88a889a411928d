package io.sharegpu.testcluster.fuzz;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A JSON tree that can hold what a parser would refuse to build: duplicate keys ({@link Obj} is a
 * list of members), raw number tokens such as {@code NaN} or {@code 1e999999} ({@link Raw}), lone
 * surrogates in strings. Values are {@link Obj}, {@link List}, {@link String}, {@link Number},
 * {@link Boolean}, {@link Raw} or null.
 */
public final class Json {

  /** The JSON {@code null} where a tree must not be Java null (a whole body). */
  public static final Raw NULL = new Raw("null");

  private Json() {}

  /** An object: members in order, keys may repeat. */
  public record Obj(List<Member> members) {}

  /** One member of an object. */
  public static final class Member {
    private String key;
    private @Nullable Object value;

    /** Creates a member. */
    public Member(String key, @Nullable Object value) {
      this.key = key;
      this.value = value;
    }

    /** The key. */
    public String key() {
      return key;
    }

    /** The value. */
    public @Nullable Object value() {
      return value;
    }

    void setKey(String key) {
      this.key = key;
    }

    void setValue(@Nullable Object value) {
      this.value = value;
    }
  }

  /** A token written as is, e.g. {@code NaN} or {@code 1e100}. */
  public record Raw(String text) {}

  /** Returns an object of alternating keys and values. */
  public static Obj obj(@Nullable Object... keysAndValues) {
    List<Member> members = new ArrayList<>();
    for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
      members.add(new Member(String.valueOf(keysAndValues[i]), keysAndValues[i + 1]));
    }
    return new Obj(members);
  }

  /** Returns a mutable list of the values. */
  public static List<Object> arr(@Nullable Object... values) {
    List<Object> list = new ArrayList<>();
    for (Object v : values) {
      list.add(v);
    }
    return list;
  }

  /** Returns a deep copy. */
  public static @Nullable Object copy(@Nullable Object value) {
    if (value instanceof Obj obj) {
      List<Member> members = new ArrayList<>(obj.members().size());
      for (Member m : obj.members()) {
        members.add(new Member(m.key(), copy(m.value())));
      }
      return new Obj(members);
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (Object v : list) {
        out.add(copy(v));
      }
      return out;
    }
    return value;
  }

  /** Adds every object and list in the tree (the root first) to {@code out}. */
  public static void collectContainers(@Nullable Object value, List<Object> out) {
    if (value instanceof Obj obj) {
      out.add(obj);
      for (Member m : obj.members()) {
        collectContainers(m.value(), out);
      }
    } else if (value instanceof List<?> list) {
      out.add(list);
      if (list.size() > 50) {
        return; // a list of many copies: its first elements stand for the rest
      }
      for (Object v : list) {
        collectContainers(v, out);
      }
    }
  }

  /** Writes the tree as JSON text; deep trees are written without recursion limits. */
  public static String write(@Nullable Object value) {
    StringBuilder sb = new StringBuilder(256);
    // an explicit stack instead of recursion: mutated trees may nest thousands deep
    List<Object> stack = new ArrayList<>();
    stack.add(new Pending(value));
    while (!stack.isEmpty()) {
      Object top = stack.remove(stack.size() - 1);
      if (top instanceof String text) {
        sb.append(text);
        continue;
      }
      Object v = ((Pending) top).value();
      if (v == null) {
        sb.append("null");
      } else if (v instanceof Raw raw) {
        sb.append(raw.text());
      } else if (v instanceof String s) {
        quote(sb, s);
      } else if (v instanceof Number || v instanceof Boolean) {
        sb.append(v);
      } else if (v instanceof Obj obj) {
        sb.append('{');
        List<Object> parts = new ArrayList<>();
        for (int i = 0; i < obj.members().size(); i++) {
          Member m = obj.members().get(i);
          StringBuilder key = new StringBuilder();
          if (i > 0) {
            key.append(',');
          }
          quote(key, m.key());
          key.append(':');
          parts.add(key.toString());
          parts.add(new Pending(m.value()));
        }
        parts.add("}");
        pushReversed(stack, parts);
      } else if (v instanceof List<?> list) {
        sb.append('[');
        List<Object> parts = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
          if (i > 0) {
            parts.add(",");
          }
          parts.add(new Pending(list.get(i)));
        }
        parts.add("]");
        pushReversed(stack, parts);
      } else {
        quote(sb, v.toString());
      }
    }
    return sb.toString();
  }

  private record Pending(@Nullable Object value) {}

  private static void pushReversed(List<Object> stack, List<Object> parts) {
    for (int i = parts.size() - 1; i >= 0; i--) {
      stack.add(parts.get(i));
    }
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c); // lone surrogates stay: the UTF-8 encoder turns them into '?'
      }
    }
    sb.append('"');
  }
}
