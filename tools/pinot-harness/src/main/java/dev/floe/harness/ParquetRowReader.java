package dev.floe.harness;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.pinot.spi.data.readers.GenericRow;
import org.apache.pinot.spi.data.readers.RecordReader;
import org.apache.pinot.spi.data.readers.RecordReaderConfig;

/**
 * A Pinot RecordReader over a Parquet file (the pinot-parquet plugin is not published on
 * Maven Central for Pinot 1.x). It produces the Java values Pinot's native Parquet extractor
 * documents: BOOLEAN, INT32, INT64, FLOAT, DOUBLE as boxed values; STRING/ENUM as String, other
 * binaries as byte[]; DECIMAL as BigDecimal; TIMESTAMP and INT96 as java.sql.Timestamp; DATE as
 * LocalDate; TIME as LocalTime; UUID as UUID; LIST and repeated fields as Object[]; MAP and
 * structs as Map. Pinot's own transform pipeline then converts them to the schema's types.
 */
final class ParquetRowReader implements RecordReader {
  private static final long JULIAN_EPOCH_DAY = 2_440_588L;
  private static final long NANOS_PER_DAY = 86_400_000_000_000L;

  private File _file;
  private Set<String> _fields;
  private transient ParquetReader<Group> _reader;
  private transient Group _next;

  @Override
  public void init(File dataFile, Set<String> fieldsToRead, RecordReaderConfig config) throws IOException {
    _file = dataFile;
    _fields = fieldsToRead == null || fieldsToRead.isEmpty() ? null : fieldsToRead;
    open();
  }

  private void open() throws IOException {
    _reader = ParquetReader.builder(new GroupReadSupport(), new Path(_file.getAbsoluteFile().toURI()))
        .withConf(new Configuration()).build();
    _next = _reader.read();
  }

  @Override
  public boolean hasNext() {
    return _next != null;
  }

  @Override
  public GenericRow next(GenericRow reuse) throws IOException {
    Group g = _next;
    GroupType type = g.getType();
    for (int f = 0; f < type.getFieldCount(); f++) {
      String name = type.getFieldName(f);
      if (_fields == null || _fields.contains(name)) {
        try {
          reuse.putValue(name, field(g, f, type.getType(f)));
        } catch (RuntimeException e) {
          throw new IOException("read Parquet column " + name + " of " + _file + ": " + e.getMessage(), e);
        }
      }
    }
    _next = _reader.read();
    return reuse;
  }

  @Override
  public void rewind() throws IOException {
    close();
    open();
  }

  @Override
  public void close() throws IOException {
    if (_reader != null) {
      _reader.close();
      _reader = null;
    }
  }

  private static Object field(Group g, int f, Type t) {
    int n = g.getFieldRepetitionCount(f);
    if (t.isRepetition(Type.Repetition.REPEATED)) {
      Object[] out = new Object[n];
      for (int i = 0; i < n; i++) {
        out[i] = value(g, f, i, t);
      }
      return out;
    }
    return n == 0 ? null : value(g, f, 0, t);
  }

  private static Object value(Group g, int f, int i, Type t) {
    if (t.isPrimitive()) {
      return primitive(g, f, i, t.asPrimitiveType());
    }
    Group child = g.getGroup(f, i);
    LogicalTypeAnnotation lt = t.getLogicalTypeAnnotation();
    if (lt instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      return list(child, t.getName());
    }
    if (lt instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
        || lt instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation) {
      return map(child);
    }
    return struct(child);
  }

  /** LIST per the Parquet backward-compatibility rules: 3-level unless the repeated field is the element. */
  private static Object[] list(Group listGroup, String listName) {
    Type rep = listGroup.getType().getType(0);
    int n = listGroup.getFieldRepetitionCount(0);
    Object[] out = new Object[n];
    boolean elementIsRepeated = rep.isPrimitive() || rep.asGroupType().getFieldCount() > 1
        || rep.getName().equals("array") || rep.getName().equals(listName + "_tuple");
    for (int i = 0; i < n; i++) {
      if (elementIsRepeated) {
        out[i] = value(listGroup, 0, i, rep);
      } else {
        Group wrapper = listGroup.getGroup(0, i);
        out[i] = field(wrapper, 0, rep.asGroupType().getType(0));
      }
    }
    return out;
  }

  private static Map<String, Object> map(Group mapGroup) {
    Map<String, Object> out = new LinkedHashMap<>();
    int n = mapGroup.getFieldRepetitionCount(0);
    for (int i = 0; i < n; i++) {
      Group kv = mapGroup.getGroup(0, i);
      GroupType kvType = kv.getType();
      Object key = field(kv, 0, kvType.getType(0));
      Object val = kvType.getFieldCount() > 1 ? field(kv, 1, kvType.getType(1)) : null;
      out.put(String.valueOf(key), val);
    }
    return out;
  }

  private static Map<String, Object> struct(Group g) {
    Map<String, Object> out = new LinkedHashMap<>();
    GroupType type = g.getType();
    for (int f = 0; f < type.getFieldCount(); f++) {
      out.put(type.getFieldName(f), field(g, f, type.getType(f)));
    }
    return out;
  }

  private static Object primitive(Group g, int f, int i, PrimitiveType t) {
    LogicalTypeAnnotation lt = t.getLogicalTypeAnnotation();
    switch (t.getPrimitiveTypeName()) {
      case BOOLEAN:
        return g.getBoolean(f, i);
      case INT32:
        return int32(g.getInteger(f, i), lt);
      case INT64:
        return int64(g.getLong(f, i), lt);
      case INT96:
        return int96(g.getInt96(f, i));
      case FLOAT:
        return g.getFloat(f, i);
      case DOUBLE:
        return g.getDouble(f, i);
      default:
        return binary(g.getBinary(f, i), lt);
    }
  }

  private static Object int32(int v, LogicalTypeAnnotation lt) {
    if (lt instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
      return BigDecimal.valueOf(v, ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) lt).getScale());
    }
    if (lt instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
      return LocalDate.ofEpochDay(v);
    }
    if (lt instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
      return LocalTime.ofNanoOfDay(v * 1_000_000L);
    }
    return v;
  }

  private static Object int64(long v, LogicalTypeAnnotation lt) {
    if (lt instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
      return BigDecimal.valueOf(v, ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) lt).getScale());
    }
    if (lt instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) {
      return timestamp(v, ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) lt).getUnit());
    }
    if (lt instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
      LogicalTypeAnnotation.TimeUnit unit = ((LogicalTypeAnnotation.TimeLogicalTypeAnnotation) lt).getUnit();
      return LocalTime.ofNanoOfDay(unit == LogicalTypeAnnotation.TimeUnit.MICROS ? v * 1000L : v);
    }
    return v;
  }

  private static Timestamp timestamp(long v, LogicalTypeAnnotation.TimeUnit unit) {
    long perSecond;
    switch (unit) {
      case MILLIS:
        return new Timestamp(v);
      case MICROS:
        perSecond = 1_000_000L;
        break;
      default:
        perSecond = 1_000_000_000L;
    }
    long seconds = Math.floorDiv(v, perSecond);
    long frac = Math.floorMod(v, perSecond);
    Timestamp ts = new Timestamp(seconds * 1000L);
    ts.setNanos((int) (frac * (1_000_000_000L / perSecond)));
    return ts;
  }

  private static Timestamp int96(Binary b) {
    ByteBuffer buf = b.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    long nanosOfDay = buf.getLong();
    long julianDay = buf.getInt() & 0xffffffffL;
    long nanos = (julianDay - JULIAN_EPOCH_DAY) * NANOS_PER_DAY + nanosOfDay;
    return timestamp(nanos, LogicalTypeAnnotation.TimeUnit.NANOS);
  }

  private static Object binary(Binary b, LogicalTypeAnnotation lt) {
    if (lt instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
        || lt instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation) {
      return b.toStringUsingUTF8();
    }
    if (lt instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
      return new BigDecimal(new BigInteger(b.getBytes()),
          ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) lt).getScale());
    }
    if (lt instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
      ByteBuffer buf = b.toByteBuffer();
      return new UUID(buf.getLong(), buf.getLong());
    }
    return b.getBytes();
  }
}
