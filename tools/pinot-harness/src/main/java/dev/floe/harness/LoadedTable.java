package dev.floe.harness;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.io.FileUtils;
import org.apache.pinot.segment.local.indexsegment.immutable.ImmutableSegmentLoader;
import org.apache.pinot.segment.local.segment.index.loader.IndexLoadingConfig;
import org.apache.pinot.segment.spi.ImmutableSegment;
import org.apache.pinot.segment.spi.IndexSegment;
import org.apache.pinot.spi.config.table.TableConfig;
import org.apache.pinot.spi.data.Schema;
import org.apache.pinot.spi.utils.JsonUtils;
import org.apache.pinot.spi.utils.ReadMode;

/**
 * One OFFLINE table's schema, table config and loaded segments. Segments are
 * staged (copied or untarred) into the table's work directory and loaded the
 * way a server loads them: ImmutableSegmentLoader with an IndexLoadingConfig
 * built from the table config and schema, so the segment preprocessor adds
 * the indexes the table config asks for and columns the schema has but the
 * segment lacks get their default values.
 */
final class LoadedTable {
  private final String _name;
  private final File _work;
  private Schema _schema;
  private TableConfig _tableConfig;
  private String _configKey = "";
  /** Loaded segments by the key of the file they came from (path, inode, size, mtime). */
  private final Map<String, Loaded> _segments = new HashMap<>();
  private int _staged;

  LoadedTable(String name, File work) {
    _name = name;
    _work = work;
  }

  private record Loaded(ImmutableSegment segment, File dir) {
  }

  /** What a load did. */
  record LoadResult(int segments, int loaded, int kept, int unloaded, long totalDocs, long millis) {
  }

  Schema schema() {
    return _schema;
  }

  List<IndexSegment> segments() {
    return new ArrayList<>(_segments.values().stream().map(l -> (IndexSegment) l.segment()).toList());
  }

  /**
   * Makes exactly the given segment files the table's segments. A file loaded
   * before and unchanged since (same path, inode, size and modification time) is
   * kept; a changed schema or table config reloads everything.
   */
  LoadResult load(File schemaFile, File tableConfigFile, List<File> files) throws Exception {
    long start = System.currentTimeMillis();
    String schemaText = Files.readString(schemaFile.toPath());
    String tableText = Files.readString(tableConfigFile.toPath());
    Schema schema = Schema.fromString(schemaText);
    TableConfig tableConfig = JsonUtils.stringToObject(tableText, TableConfig.class);
    String configKey = schemaText + "\n" + tableText;
    if (!configKey.equals(_configKey)) {
      unloadAll();
      _schema = schema;
      _tableConfig = tableConfig;
      _configKey = configKey;
    }
    Set<String> want = new HashSet<>();
    int loaded = 0;
    int kept = 0;
    for (File f : files) {
      String key = key(f);
      if (!want.add(key)) {
        throw new IOException("segment file " + f + " listed twice for table " + _name);
      }
      if (_segments.containsKey(key)) {
        kept++;
        continue;
      }
      _segments.put(key, loadOne(f));
      loaded++;
    }
    int unloaded = 0;
    for (String key : new ArrayList<>(_segments.keySet())) {
      if (!want.contains(key)) {
        unload(_segments.remove(key));
        unloaded++;
      }
    }
    long docs = 0;
    for (Loaded l : _segments.values()) {
      docs += l.segment().getSegmentMetadata().getTotalDocs();
    }
    return new LoadResult(_segments.size(), loaded, kept, unloaded, docs, System.currentTimeMillis() - start);
  }

  private static String key(File f) throws IOException {
    File abs = f.getAbsoluteFile();
    if (!abs.exists()) {
      throw new IOException("no such segment file or directory: " + f);
    }
    BasicFileAttributes attrs = Files.readAttributes(abs.toPath(), BasicFileAttributes.class);
    return abs.getPath() + "\u0000" + attrs.fileKey() + "\u0000" + attrs.size() + "\u0000"
        + attrs.lastModifiedTime().to(TimeUnit.NANOSECONDS);
  }

  private Loaded loadOne(File f) throws Exception {
    File stage = new File(_work, "s" + (_staged++));
    FileUtils.forceMkdir(stage);
    try {
      File dir = ReadCommand.stage(f, stage);
      IndexLoadingConfig cfg = new IndexLoadingConfig(_tableConfig, _schema);
      cfg.setReadMode(ReadMode.mmap);
      ImmutableSegment segment = ImmutableSegmentLoader.load(dir, cfg);
      return new Loaded(segment, stage);
    } catch (Exception | LinkageError e) {
      FileUtils.deleteQuietly(stage);
      throw new IOException("load segment " + f + " for table " + _name + ": " + Main.describe(e), e);
    }
  }

  private static void unload(Loaded l) {
    l.segment().destroy();
    FileUtils.deleteQuietly(l.dir());
  }

  private void unloadAll() {
    for (Loaded l : _segments.values()) {
      unload(l);
    }
    _segments.clear();
  }

  void close() {
    unloadAll();
    FileUtils.deleteQuietly(_work);
  }
}
