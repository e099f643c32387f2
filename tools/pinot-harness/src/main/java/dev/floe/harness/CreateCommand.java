package dev.floe.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Set;
import org.apache.pinot.segment.local.segment.creator.impl.SegmentIndexCreationDriverImpl;
import org.apache.pinot.segment.spi.creator.SegmentGeneratorConfig;
import org.apache.pinot.segment.spi.creator.SegmentVersion;
import org.apache.pinot.spi.config.table.TableConfig;
import org.apache.pinot.spi.data.Schema;
import org.apache.pinot.spi.data.readers.FileFormat;
import org.apache.pinot.spi.utils.JsonUtils;

/**
 * The "create" subcommand: Pinot's own segment creation (SegmentIndexCreationDriverImpl with
 * its default transform pipeline) over a Parquet file, v3 layout. Prints
 * {"segmentDir":..., "segmentName":..., "rows":..., "createMillis":...}; createMillis covers
 * reader setup, creation and index build inside the JVM (no JVM start-up).
 */
final class CreateCommand {
  private static final Set<String> FLAGS = Set.of("--parquet", "--schema", "--table-config", "--out", "--name");

  private final JsonGenerator _out;

  CreateCommand(JsonGenerator out) {
    _out = out;
  }

  int run(String[] argv) throws Exception {
    Args args = new Args(argv, FLAGS);
    File parquet = new File(args.required("--parquet"));
    Schema schema = Schema.fromString(read(args.required("--schema")));
    TableConfig tc = JsonUtils.stringToObject(read(args.required("--table-config")), TableConfig.class);
    String outDir = args.required("--out");

    long start = System.nanoTime();
    SegmentGeneratorConfig cfg = new SegmentGeneratorConfig(tc, schema);
    cfg.setInputFilePath(parquet.getPath());
    cfg.setFormat(FileFormat.PARQUET);
    cfg.setOutDir(outDir);
    cfg.setSegmentVersion(SegmentVersion.v3);
    if (args.optional("--name") != null) {
      cfg.setSegmentName(args.optional("--name"));
    }
    SegmentIndexCreationDriverImpl driver = new SegmentIndexCreationDriverImpl();
    try (ParquetRowReader reader = new ParquetRowReader()) {
      reader.init(parquet, null, null);
      driver.init(cfg, reader);
      driver.build();
    }
    long millis = (System.nanoTime() - start) / 1_000_000;

    _out.writeStartObject();
    _out.writeStringField("segmentDir", driver.getOutputDirectory().getAbsolutePath());
    _out.writeStringField("segmentName", driver.getSegmentName());
    _out.writeNumberField("rows", driver.getSegmentStats().getTotalDocCount());
    _out.writeNumberField("createMillis", millis);
    _out.writeEndObject();
    _out.writeRaw('\n');
    return 0;
  }

  private static String read(String path) throws java.io.IOException {
    return Files.readString(new File(path).toPath(), StandardCharsets.UTF_8);
  }
}
