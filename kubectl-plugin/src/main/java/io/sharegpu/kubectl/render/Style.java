package io.sharegpu.kubectl.render;

import java.io.Console;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * ANSI colour, on only when standard output is a terminal and {@code NO_COLOR} is not set (see
 * no-color.org) and {@code TERM} is not {@code dumb}. {@link #PLAIN} returns text unchanged.
 */
public final class Style {

  /** No colour at all: what pipes, files and tests get. */
  public static final Style PLAIN = new Style(false);

  /** Colour everywhere, for tests of the colour itself. */
  public static final Style ANSI = new Style(true);

  private static final String RESET = "\u001b[0m";

  private final boolean colour;

  private Style(boolean colour) {
    this.colour = colour;
  }

  /** Returns {@link #ANSI} when standard output is a terminal and the environment allows it. */
  public static Style detect() {
    return forTerminal(isTerminal(System.console()), System.getenv());
  }

  /** Returns the style for an output that is ({@code terminal}) a terminal or not. */
  static Style forTerminal(boolean terminal, Map<String, String> env) {
    String noColor = env.get("NO_COLOR");
    boolean allowed =
        (noColor == null || noColor.isEmpty()) && !"dumb".equals(env.getOrDefault("TERM", ""));
    return terminal && allowed ? ANSI : PLAIN;
  }

  /**
   * Returns true when the console is a terminal. Up to JDK 21 {@link System#console()} is null
   * unless both standard input and output are terminals; from JDK 22 it may be a console on a pipe,
   * which {@code Console.isTerminal()} (called reflectively, this code targets 17) tells apart.
   */
  private static boolean isTerminal(Console console) {
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (ReflectiveOperationException e) {
      return true; // JDK 17 to 21: a console exists only on a terminal
    }
  }

  /** Returns true when this style colours text. */
  public boolean coloured() {
    return colour;
  }

  public String bold(String s) {
    return wrap("1", s);
  }

  public String dim(String s) {
    return wrap("2", s);
  }

  public String red(String s) {
    return wrap("31", s);
  }

  public String green(String s) {
    return wrap("32", s);
  }

  public String yellow(String s) {
    return wrap("33", s);
  }

  public String cyan(String s) {
    return wrap("36", s);
  }

  /** Colours a fill level: green below 70 %, yellow below 90 %, red from 90 %. */
  public String level(String s, double fraction) {
    if (fraction >= 0.9) {
      return red(s);
    }
    return fraction >= 0.7 ? yellow(s) : green(s);
  }

  private String wrap(String code, String s) {
    return colour && !s.isEmpty() ? "\u001b[" + code + "m" + s + RESET : s;
  }

  /** Returns the length of {@code s} as shown, without ANSI escape sequences. */
  public static int visibleLength(String s) {
    return s.replaceAll("\u001b\\[[0-9;]*m", "").length();
  }
}
