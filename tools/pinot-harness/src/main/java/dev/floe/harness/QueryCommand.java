package dev.floe.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.pinot.common.response.broker.BrokerResponseNative;
import org.apache.pinot.spi.data.Schema;
import org.apache.pinot.spi.utils.JsonUtils;

/**
 * The "query" subcommand: Pinot 1.5.1's single-stage engine (QueryEngine)
 * over segments loaded in this JVM.
 *
 * <p>One shot: {@code query --schema S --table-config T --sql Q SEGMENT...}
 * loads the segments as the schema's table, runs Q and prints the broker
 * response JSON (exit 1 when it holds exceptions).
 *
 * <p>Serving: {@code query --serve} reads one JSON request per stdin line
 * and answers each with one JSON line on stdout, until stdin ends:
 *
 * <pre>
 * {"op":"load","table":T,"schema":F,"tableConfig":F,"segments":[F...]}
 *     → {"ok":true,"segments":n,"loaded":n,"kept":n,"unloaded":n,"totalDocs":n,"millis":n}
 *       (the listed segment dirs or .tar.gz files become exactly the table's segments;
 *        files loaded before and unchanged since are kept loaded)
 * {"op":"query","sql":Q}   → {"ok":true,"response":BROKER_RESPONSE_JSON}
 * {"op":"drop","table":T}  → {"ok":true}
 * </pre>
 *
 * A request that cannot be carried out answers {"ok":false,"error":...};
 * query errors are broker exceptions inside "response", as a broker reports them.
 */
final class QueryCommand {
  private final JsonGenerator _out;

  QueryCommand(JsonGenerator out) {
    _out = out;
  }

  int run(String[] args) throws Exception {
    if (args.length == 1 && args[0].equals("--serve")) {
      return serve();
    }
    String schema = null;
    String tableConfig = null;
    String sql = null;
    List<File> segments = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--schema" -> schema = value(args, ++i);
        case "--table-config" -> tableConfig = value(args, ++i);
        case "--sql" -> sql = value(args, ++i);
        default -> segments.add(new File(args[i]));
      }
    }
    if (schema == null || tableConfig == null || sql == null) {
      throw new Main.UsageException("query --serve | query --schema S --table-config T --sql Q SEGMENT...");
    }
    try (QueryEngine engine = new QueryEngine(Files.createTempDirectory("floe-harness-query").toFile())) {
      String table = Schema.fromFile(new File(schema)).getSchemaName();
      engine.load(table, new File(schema), new File(tableConfig), segments);
      BrokerResponseNative response = engine.query(sql);
      _out.writeRawValue(response.toJsonString());
      _out.writeRaw('\n');
      return response.getExceptionsSize() == 0 ? 0 : 1;
    }
  }

  private static String value(String[] args, int i) throws Main.UsageException {
    if (i >= args.length) {
      throw new Main.UsageException("flag " + args[i - 1] + " needs a value");
    }
    return args[i];
  }

  private int serve() throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (QueryEngine engine = new QueryEngine(Files.createTempDirectory("floe-harness-query").toFile())) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        _out.writeStartObject();
        try {
          handle(engine, JsonUtils.stringToJsonNode(line));
        } catch (Exception | LinkageError e) {
          e.printStackTrace(System.err);
          _out.writeBooleanField("ok", false);
          _out.writeStringField("error", Main.describe(e));
        }
        _out.writeEndObject();
        _out.writeRaw('\n');
        _out.flush();
      }
    }
    return 0;
  }

  private void handle(QueryEngine engine, JsonNode req) throws Exception {
    String op = text(req, "op");
    switch (op) {
      case "load" -> {
        List<File> segments = new ArrayList<>();
        JsonNode list = req.get("segments");
        if (list == null || !list.isArray()) {
          throw new IOException("load request needs a \"segments\" array");
        }
        for (JsonNode s : list) {
          segments.add(new File(s.asText()));
        }
        LoadedTable.LoadResult r = engine.load(text(req, "table"), new File(text(req, "schema")),
            new File(text(req, "tableConfig")), segments);
        _out.writeBooleanField("ok", true);
        _out.writeNumberField("segments", r.segments());
        _out.writeNumberField("loaded", r.loaded());
        _out.writeNumberField("kept", r.kept());
        _out.writeNumberField("unloaded", r.unloaded());
        _out.writeNumberField("totalDocs", r.totalDocs());
        _out.writeNumberField("millis", r.millis());
      }
      case "query" -> {
        BrokerResponseNative response = engine.query(text(req, "sql"));
        _out.writeBooleanField("ok", true);
        _out.writeFieldName("response");
        _out.writeRawValue(response.toJsonString());
      }
      case "drop" -> {
        engine.drop(text(req, "table"));
        _out.writeBooleanField("ok", true);
      }
      default -> throw new IOException("unknown op \"" + op + "\" (load, query, drop)");
    }
  }

  private static String text(JsonNode req, String field) throws IOException {
    JsonNode v = req.get(field);
    if (v == null || !v.isTextual()) {
      throw new IOException("request needs a string field \"" + field + "\"");
    }
    return v.asText();
  }
}
