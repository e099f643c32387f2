package dev.floe.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.pinot.segment.local.utils.SchemaUtils;
import org.apache.pinot.segment.local.utils.TableConfigUtils;
import org.apache.pinot.spi.config.table.TableConfig;
import org.apache.pinot.spi.data.Schema;
import org.apache.pinot.spi.utils.JsonUtils;

/**
 * The "validate-schema" and "validate-table-config" subcommands: parse with Pinot's own
 * Schema.fromString / JsonUtils and run SchemaUtils.validate / TableConfigUtils.validate
 * (what the controller runs on POST /schemas and POST /tables). Prints {"ok":true} or
 * {"ok":false,"error":"..."}; exit status 1 when not ok.
 */
final class ValidateCommand {
  private final JsonGenerator _out;

  ValidateCommand(JsonGenerator out) {
    _out = out;
  }

  int validateSchema(String[] args) throws Exception {
    if (args.length != 1) {
      throw new Main.UsageException("validate-schema SCHEMA.json");
    }
    String text = read(args[0]);
    try {
      Schema schema = Schema.fromString(text);
      SchemaUtils.validate(schema);
      return report(null);
    } catch (Exception e) {
      return report("schema " + args[0] + ": " + Main.describe(e));
    }
  }

  int validateTableConfig(String[] args) throws Exception {
    String tablePath;
    String schemaPath = null;
    if (args.length == 1) {
      tablePath = args[0];
    } else if (args.length == 3 && args[1].equals("--schema")) {
      tablePath = args[0];
      schemaPath = args[2];
    } else {
      throw new Main.UsageException("validate-table-config TABLE_CONFIG.json [--schema SCHEMA.json]");
    }
    String tableText = read(tablePath);
    String schemaText = schemaPath == null ? null : read(schemaPath);
    try {
      TableConfig tc = JsonUtils.stringToObject(tableText, TableConfig.class);
      Schema schema = schemaText == null ? null : Schema.fromString(schemaText);
      if (schema == null) {
        // Pinot 1.5 refuses to validate a table config without its schema; check what stands alone.
        TableConfigUtils.validateTableName(tc);
        return report(null);
      }
      SchemaUtils.validate(schema);
      TableConfigUtils.validate(tc, schema);
      SchemaUtils.validate(schema, java.util.List.of(tc));
      return report(null);
    } catch (Exception e) {
      return report("table config " + tablePath + ": " + Main.describe(e));
    }
  }

  private static String read(String path) throws IOException {
    return Files.readString(new File(path).toPath(), StandardCharsets.UTF_8);
  }

  private int report(String error) throws IOException {
    _out.writeStartObject();
    _out.writeBooleanField("ok", error == null);
    if (error != null) {
      _out.writeStringField("error", error);
    }
    _out.writeEndObject();
    _out.writeRaw('\n');
    return error == null ? 0 : 1;
  }
}
