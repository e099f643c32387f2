package dev.floe.harness;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;

/**
 * Entry point of floe's Pinot harness. Each subcommand prints JSON on stdout;
 * everything else (logs, stray library output) goes to stderr.
 *
 * <pre>
 * read SEGMENT...                      dump segments (dirs or .tar.gz) as JSON lines
 * create --parquet F --schema S --table-config T --out DIR [--name N]
 * validate-schema S.json
 * validate-table-config T.json [--schema S.json]
 * tar SEGMENT_DIR OUT.tar.gz
 * query --schema S --table-config T --sql Q SEGMENT...   one query on Pinot's engine
 * query --serve                        load/query requests as JSON lines on stdin
 * </pre>
 *
 * Exit status: 0 on success, 1 when a command ran but found problems (the JSON
 * says which), 2 on usage errors or harness failures.
 */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) throws Exception {
    OutputStream stdout = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
    System.setOut(System.err);
    int status;
    try (JsonGenerator out = new JsonFactory().createGenerator(stdout, JsonEncoding.UTF8)) {
      out.setRootValueSeparator(null);
      status = run(args, out);
      out.flush();
    }
    stdout.flush();
    System.exit(status);
  }

  private static int run(String[] args, JsonGenerator out) {
    if (args.length == 0) {
      System.err.println("usage: harness read|create|validate-schema|validate-table-config|tar|query ...");
      return 2;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      switch (args[0]) {
        case "read":
          return new ReadCommand(out).run(rest);
        case "create":
          return new CreateCommand(out).run(rest);
        case "validate-schema":
          return new ValidateCommand(out).validateSchema(rest);
        case "validate-table-config":
          return new ValidateCommand(out).validateTableConfig(rest);
        case "tar":
          return new TarCommand(out).run(rest);
        case "query":
          return new QueryCommand(out).run(rest);
        default:
          System.err.println("unknown subcommand: " + args[0]);
          return 2;
      }
    } catch (UsageException e) {
      System.err.println("usage: " + e.getMessage());
      return 2;
    } catch (Exception | LinkageError e) {
      System.err.println("harness " + args[0] + " failed: " + describe(e));
      e.printStackTrace(System.err);
      return 2;
    }
  }

  /** Returns the exception chain as one line, outermost first. */
  static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (sb.length() > 0) {
        sb.append(": caused by ");
      }
      sb.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
      if (c.getCause() == c) {
        break;
      }
    }
    return sb.toString();
  }

  static String stackTrace(Throwable t) {
    StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    return sw.toString();
  }

  /** Signals bad command-line arguments. */
  static final class UsageException extends Exception {
    UsageException(String msg) {
      super(msg);
    }
  }
}
