package dev.floe.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.HexFormat;
import org.apache.pinot.spi.data.FieldSpec.DataType;
import org.apache.pinot.spi.utils.ByteArray;

/**
 * Writes Pinot values as exact, typed JSON. The encoding is a contract with
 * floe's Go package internal/pinottest:
 *
 * <pre>
 * INT (and BOOLEAN, stored as INT)  JSON number
 * LONG (and TIMESTAMP)              JSON string of the decimal value
 * FLOAT / DOUBLE                    {"s": Java toString, "bits": IEEE bits as hex (8 / 16 digits)}
 * BIG_DECIMAL                       {"s": toPlainString, "unscaled": decimal string, "scale": number}
 * BYTES                             lower-case hex string
 * STRING / JSON                     JSON string
 * multi-value                       JSON array of the above
 * Java null                         JSON null
 * </pre>
 */
final class ValueEncoder {
  private ValueEncoder() {
  }

  static void write(JsonGenerator g, DataType storedType, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
      return;
    }
    if (v instanceof Object[]) {
      g.writeStartArray();
      for (Object e : (Object[]) v) {
        writeScalar(g, storedType, e);
      }
      g.writeEndArray();
      return;
    }
    writeScalar(g, storedType, v);
  }

  static void writeScalar(JsonGenerator g, DataType storedType, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
      return;
    }
    switch (storedType) {
      case INT:
        g.writeNumber(((Number) v).intValue());
        return;
      case LONG:
        g.writeString(Long.toString(((Number) v).longValue()));
        return;
      case FLOAT: {
        float f = ((Number) v).floatValue();
        g.writeStartObject();
        g.writeStringField("s", Float.toString(f));
        g.writeStringField("bits", String.format("%08x", Float.floatToRawIntBits(f)));
        g.writeEndObject();
        return;
      }
      case DOUBLE: {
        double d = ((Number) v).doubleValue();
        g.writeStartObject();
        g.writeStringField("s", Double.toString(d));
        g.writeStringField("bits", String.format("%016x", Double.doubleToRawLongBits(d)));
        g.writeEndObject();
        return;
      }
      case BIG_DECIMAL: {
        BigDecimal bd = (BigDecimal) v;
        g.writeStartObject();
        g.writeStringField("s", bd.toPlainString());
        g.writeStringField("unscaled", bd.unscaledValue().toString());
        g.writeNumberField("scale", bd.scale());
        g.writeEndObject();
        return;
      }
      case BYTES:
        g.writeString(toHex(v));
        return;
      default:
        g.writeString(v.toString());
    }
  }

  private static String toHex(Object v) {
    if (v instanceof ByteArray) {
      return ((ByteArray) v).toHexString();
    }
    if (v instanceof byte[]) {
      return HexFormat.of().formatHex((byte[]) v);
    }
    throw new IllegalArgumentException("BYTES value of unexpected class " + v.getClass().getName());
  }
}
