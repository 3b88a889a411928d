package io.sharegpu.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Command line: {@code replay} replays a trace by the FGD paper's protocol; {@code latency}
 * measures in-process filter + prioritize; {@code heap} the heap core needs for a large cluster.
 * Exit status 0 on success, 2 on a usage error, 1 on any other error.
 */
public final class Main {
  static final String USAGE =
      """
      usage:
        sharegpu-simulator replay --nodes FILE --pods FILE --policy NAME[,NAME...]
                                  [--seeds 42-51] [--threads N] [--json OUT] [--plot OUT.png]
        sharegpu-simulator compare --nodes FILE (--pods-dir DIR [--lists a,b] | --pods FILE[,FILE...])
                                   [--policy all|NAME,...] [--seeds 42-51] [--threads N]
                                   [--json OUT] [--plot OUT.png]
        sharegpu-simulator compare --from A.json[,B.json...] [--json OUT] [--plot OUT.png]
                                   (the tables again from saved runs, merged)
        sharegpu-simulator mix --pods FILE --cpu-share 0.25 [--seed 1] --out FILE
        sharegpu-simulator latency [--nodes 5000] [--gpus-per-node 8] [--policy sharegpu]
                                   [--occupancy 70] [--iterations 2000] [--json OUT]
                                   [--fill synthetic|trace:FILE|distinct]
                                   [--request mix|share:MILLI:MIB|whole:N]
        sharegpu-simulator heap [--nodes 5000] [--gpus-per-node 8] [--pods 50000]
                                [--policy sharegpu] [--json OUT]
        sharegpu-simulator plot --json FILE[,FILE...] --out OUT.png [--title TEXT]
                                (replay files: curves; latency files: the scale curve)
      """;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    try {
      if (args.length == 0) {
        throw new UsageException("no command");
      }
      Map<String, String> opts = options(args);
      switch (args[0]) {
        case "replay" -> ReplayCommand.run(opts, out, err);
        case "compare" -> CompareCommand.run(opts, out, err);
        case "mix" -> MixCommand.run(opts, out, err);
        case "latency" -> LatencyCommand.run(opts, out, err);
        case "heap" -> HeapCommand.run(opts, out, err);
        case "plot" -> PlotCommand.run(opts, out, err);
        case "help", "--help", "-h" -> out.print(USAGE);
        default -> throw new UsageException("unknown command '" + args[0] + "'");
      }
      return 0;
    } catch (UsageException e) {
      err.println("error: " + e.getMessage());
      err.print(USAGE);
      return 2;
    } catch (IOException | RuntimeException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new UsageException("unexpected argument '" + a + "'");
      }
      if (i + 1 >= args.length) {
        throw new UsageException("option " + a + " needs a value");
      }
      m.put(a.substring(2), args[++i]);
    }
    return m;
  }

  static String required(Map<String, String> opts, String key) {
    String v = opts.get(key);
    if (v == null || v.isBlank()) {
      throw new UsageException("missing --" + key);
    }
    return v;
  }

  static int integer(Map<String, String> opts, String key, int dflt) {
    String v = opts.get(key);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + key + " must be a whole number, got '" + v + "'");
    }
  }

  /** Parses {@code 42-51}, {@code 42,43,50} or a mix. */
  static List<Long> seeds(String spec) {
    List<Long> out = new ArrayList<>();
    try {
      for (String part : spec.split(",")) {
        String p = part.trim();
        int dash = p.indexOf('-', 1);
        if (dash > 0) {
          long a = Long.parseLong(p.substring(0, dash).trim());
          long b = Long.parseLong(p.substring(dash + 1).trim());
          if (b < a) {
            throw new UsageException("seed range " + p + " is empty");
          }
          for (long s = a; s <= b; s++) {
            out.add(s);
          }
        } else if (!p.isEmpty()) {
          out.add(Long.parseLong(p));
        }
      }
    } catch (NumberFormatException e) {
      throw new UsageException("--seeds must look like 42-51 or 42,43; got '" + spec + "'");
    }
    if (out.isEmpty()) {
      throw new UsageException("--seeds is empty");
    }
    return out;
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  /** A mistake in the command line. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
