package dev.floe.harness;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Parses "--flag value" pairs. */
final class Args {
  private final Map<String, String> _values = new HashMap<>();

  Args(String[] args, Set<String> known) throws Main.UsageException {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!known.contains(a)) {
        throw new Main.UsageException("unknown flag " + a + " (known: " + known + ")");
      }
      if (i + 1 >= args.length) {
        throw new Main.UsageException("flag " + a + " needs a value");
      }
      _values.put(a, args[++i]);
    }
  }

  String required(String flag) throws Main.UsageException {
    String v = _values.get(flag);
    if (v == null) {
      throw new Main.UsageException("missing required flag " + flag);
    }
    return v;
  }

  String optional(String flag) {
    return _values.get(flag);
  }
}
