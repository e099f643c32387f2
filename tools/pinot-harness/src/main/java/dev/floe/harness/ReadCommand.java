package dev.floe.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.commons.configuration2.PropertiesConfiguration;
import org.apache.commons.io.FileUtils;
import org.apache.pinot.common.utils.TarCompressionUtils;
import org.apache.pinot.segment.local.indexsegment.immutable.ImmutableSegmentLoader;
import org.apache.pinot.segment.local.segment.readers.PinotSegmentRecordReader;
import org.apache.pinot.segment.spi.ColumnMetadata;
import org.apache.pinot.segment.spi.ImmutableSegment;
import org.apache.pinot.segment.spi.SegmentMetadata;
import org.apache.pinot.segment.spi.store.SegmentDirectoryPaths;
import org.apache.pinot.spi.data.FieldSpec.DataType;
import org.apache.pinot.spi.data.readers.GenericRow;
import org.apache.pinot.spi.env.CommonsConfigurationUtils;
import org.apache.pinot.spi.utils.ReadMode;

/**
 * The "read" subcommand. For each segment it prints JSON lines:
 *
 * <pre>
 * {"kind":"segment","index":i,"path":...,"metadata":{...},"columns":{...}}
 * {"kind":"row","index":i,"doc":d,"values":{...},"nulls":[...]}      one per document
 * {"kind":"end","index":i,"rows":n,"errors":[...]}
 * </pre>
 *
 * or {"kind":"end","index":i,"path":...,"errors":[...],"loadFailed":true} when Pinot cannot
 * load it. The segment is copied to a temporary directory first, so loading never changes the input.
 */
final class ReadCommand {
  private final JsonGenerator _out;

  ReadCommand(JsonGenerator out) {
    _out = out;
  }

  int run(String[] paths) throws Exception {
    if (paths.length == 0) {
      throw new Main.UsageException("read SEGMENT_DIR_OR_TAR_GZ...");
    }
    int status = 0;
    for (int i = 0; i < paths.length; i++) {
      File work = Files.createTempDirectory("floe-harness-read").toFile();
      try {
        if (!readOne(i, new File(paths[i]), work)) {
          status = 1;
        }
      } finally {
        FileUtils.deleteQuietly(work);
      }
      _out.flush();
    }
    return status;
  }

  private boolean readOne(int index, File input, File work) throws IOException {
    ImmutableSegment segment;
    Map<String, Object> properties = new TreeMap<>();
    List<String> errors = new ArrayList<>();
    try {
      File dir = stage(input, work);
      readMetadataProperties(dir, properties, errors);
      segment = ImmutableSegmentLoader.load(dir, ReadMode.mmap);
    } catch (Exception | LinkageError e) {
      e.printStackTrace(System.err);
      writeLoadFailure(index, input, "load segment " + input + ": " + Main.describe(e));
      return false;
    }
    try {
      writeHeader(index, input, segment, properties);
      int rows = writeRows(index, segment, errors);
      errors.addAll(new IndexChecker(segment).check());
      writeEnd(index, input, rows, errors);
      return errors.isEmpty();
    } finally {
      segment.destroy();
    }
  }

  /** Copies a segment directory, or untars a .tar.gz, into work and returns the segment directory. */
  static File stage(File input, File work) throws IOException {
    if (!input.exists()) {
      throw new IOException("no such file or directory: " + input);
    }
    if (input.isDirectory()) {
      File dst = new File(work, input.getName());
      FileUtils.copyDirectory(input, dst);
      return dst;
    }
    List<File> files = TarCompressionUtils.untar(input, work);
    if (files.isEmpty()) {
      throw new IOException("empty tar file: " + input);
    }
    File top = files.get(0);
    while (!top.getParentFile().equals(work)) {
      top = top.getParentFile();
    }
    if (!top.isDirectory()) {
      throw new IOException("tar file " + input + " does not start with a segment directory (first entry "
          + top.getName() + ")");
    }
    return top;
  }

  private void writeLoadFailure(int index, File input, String error) throws IOException {
    _out.writeStartObject();
    _out.writeStringField("kind", "end");
    _out.writeNumberField("index", index);
    _out.writeStringField("path", input.getPath());
    _out.writeBooleanField("loadFailed", true);
    _out.writeArrayFieldStart("errors");
    _out.writeString(error);
    _out.writeEndArray();
    _out.writeEndObject();
    _out.writeRaw('\n');
  }

  private void writeHeader(int index, File input, ImmutableSegment segment, Map<String, Object> properties)
      throws IOException {
    SegmentMetadata md = segment.getSegmentMetadata();
    _out.writeStartObject();
    _out.writeStringField("kind", "segment");
    _out.writeNumberField("index", index);
    _out.writeStringField("path", input.getPath());
    _out.writeStringField("segmentName", md.getName());
    _out.writeStringField("version", String.valueOf(md.getVersion()));
    _out.writeNumberField("totalDocs", md.getTotalDocs());
    _out.writeStringField("crc", md.getCrc());
    writeMetadataProperties(properties);
    _out.writeObjectFieldStart("columns");
    for (Map.Entry<String, ColumnMetadata> e : physicalColumns(segment).entrySet()) {
      _out.writeFieldName(e.getKey());
      ColumnWriter.write(_out, e.getValue(), segment.getDataSource(e.getKey()));
    }
    _out.writeEndObject();
    _out.writeEndObject();
    _out.writeRaw('\n');
  }

  /** Returns the metadata of the columns stored in the segment (no virtual columns such as $docId), by name. */
  static Map<String, ColumnMetadata> physicalColumns(ImmutableSegment segment) {
    Map<String, ColumnMetadata> all = segment.getSegmentMetadata().getColumnMetadataMap();
    Map<String, ColumnMetadata> out = new TreeMap<>();
    for (String name : segment.getPhysicalColumnNames()) {
      out.put(name, all.get(name));
    }
    return out;
  }

  /**
   * Reads every key of metadata.properties, as Pinot parses it, before the loader may rewrite the
   * directory (v1 to v3 conversion); list values stay lists.
   */
  private static void readMetadataProperties(File dir, Map<String, Object> out, List<String> errors) {
    try {
      PropertiesConfiguration conf =
          CommonsConfigurationUtils.fromFile(SegmentDirectoryPaths.findMetadataFile(dir));
      for (Iterator<String> it = conf.getKeys(); it.hasNext(); ) {
        String key = it.next();
        out.put(key, conf.getProperty(key));
      }
    } catch (Exception e) {
      errors.add("read metadata.properties: " + Main.describe(e));
    }
  }

  /** Writes "metadata": list values become JSON arrays of strings. */
  private void writeMetadataProperties(Map<String, Object> properties) throws IOException {
    _out.writeObjectFieldStart("metadata");
    for (Map.Entry<String, Object> e : properties.entrySet()) {
      _out.writeFieldName(e.getKey());
      if (e.getValue() instanceof List) {
        _out.writeStartArray();
        for (Object v : (List<?>) e.getValue()) {
          _out.writeString(String.valueOf(v));
        }
        _out.writeEndArray();
      } else {
        _out.writeString(String.valueOf(e.getValue()));
      }
    }
    _out.writeEndObject();
  }

  private int writeRows(int index, ImmutableSegment segment, List<String> errors) throws IOException {
    Map<String, DataType> types = new TreeMap<>();
    for (Map.Entry<String, ColumnMetadata> e : physicalColumns(segment).entrySet()) {
      types.put(e.getKey(), e.getValue().getDataType().getStoredType());
    }
    int doc = 0;
    try (PinotSegmentRecordReader reader = new PinotSegmentRecordReader()) {
      reader.init(segment);
      GenericRow row = new GenericRow();
      while (reader.hasNext()) {
        row.clear();
        reader.next(row);
        writeRow(index, doc, row, types);
        doc++;
      }
    } catch (Exception e) {
      e.printStackTrace(System.err);
      errors.add("read document " + doc + " with PinotSegmentRecordReader: " + Main.describe(e));
    }
    return doc;
  }

  private void writeRow(int index, int doc, GenericRow row, Map<String, DataType> types) throws IOException {
    _out.writeStartObject();
    _out.writeStringField("kind", "row");
    _out.writeNumberField("index", index);
    _out.writeNumberField("doc", doc);
    _out.writeObjectFieldStart("values");
    for (Map.Entry<String, DataType> e : types.entrySet()) {
      _out.writeFieldName(e.getKey());
      ValueEncoder.write(_out, e.getValue(), row.getValue(e.getKey()));
    }
    _out.writeEndObject();
    _out.writeArrayFieldStart("nulls");
    for (String c : new TreeSet<>(row.getNullValueFields())) {
      _out.writeString(c);
    }
    _out.writeEndArray();
    _out.writeEndObject();
    _out.writeRaw('\n');
  }

  private void writeEnd(int index, File input, int rows, List<String> errors) throws IOException {
    _out.writeStartObject();
    _out.writeStringField("kind", "end");
    _out.writeNumberField("index", index);
    _out.writeStringField("path", input.getPath());
    _out.writeNumberField("rows", rows);
    _out.writeArrayFieldStart("errors");
    for (String e : errors) {
      _out.writeString(e);
    }
    _out.writeEndArray();
    _out.writeEndObject();
    _out.writeRaw('\n');
  }
}
