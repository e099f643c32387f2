package segments

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/floehq/floe/pinot"
)

// parquetLeafType describes a Parquet primitive column as a source type.
func parquetLeafType(col *parquet.Column) (srcType, error) {
	t := col.Type()
	st := srcType{desc: parquetTypeName(t)}
	lt := t.LogicalType()
	if lt != nil && lt.Value != nil {
		if ok, err := parquetLogicalType(t, lt, &st); ok || err != nil {
			return st, err
		}
	}
	switch t.Kind() {
	case parquet.Boolean:
		st.kind = kindBool
	case parquet.Int32:
		st.kind, st.bits = kindInt, 32
	case parquet.Int64:
		st.kind, st.bits = kindInt, 64
	case parquet.Int96:
		st.kind = kindInt96
	case parquet.Float:
		st.kind = kindFloat32
	case parquet.Double:
		st.kind = kindFloat64
	case parquet.ByteArray, parquet.FixedLenByteArray:
		st.kind = kindBinary
	default:
		return st, fmt.Errorf("%w: Parquet type %s", ErrUnsupportedSourceType, st.desc)
	}
	return st, nil
}

// parquetLogicalType maps an annotated primitive; ok is false when the
// annotation does not change how values are read.
func parquetLogicalType(t parquet.Type, lt *format.LogicalType, st *srcType) (bool, error) {
	switch v := lt.Value.(type) {
	case *format.StringType, *format.EnumType, *format.JsonType:
		st.kind = kindString
	case *format.UUIDType:
		st.kind = kindUUID
	case *format.DecimalType:
		st.kind, st.scale = kindDecimal, v.Scale
	case *format.DateType:
		st.kind = kindDate
	case *format.TimeType:
		st.kind, st.unit = kindTime, parquetUnit(v.Unit)
	case *format.TimestampType:
		st.kind, st.unit = kindTimestamp, parquetUnit(v.Unit)
	case *format.IntType:
		st.kind, st.bits = kindInt, int(v.BitWidth)
		if !v.IsSigned {
			st.kind = kindUint
			if v.BitWidth == 64 {
				return true, fmt.Errorf("%w: Parquet type %s (unsigned 64-bit)", ErrUnsupportedSourceType, st.desc)
			}
		}
	case *format.GeometryType, *format.GeographyType:
		st.kind = kindGeo
	case *format.BsonType:
		st.kind = kindBinary
	case *format.Float16Type:
		return true, fmt.Errorf("%w: Parquet type %s", ErrUnsupportedSourceType, st.desc)
	default:
		return false, nil
	}
	return true, nil
}

func parquetUnit(u format.TimeUnit) timeUnit {
	switch u.Value.(type) {
	case *format.MilliSeconds:
		return tuMillis
	case *format.NanoSeconds:
		return tuNanos
	}
	return tuMicros
}

// parquetTypeName names a column type as errors show it.
func parquetTypeName(t parquet.Type) string {
	name := t.Kind().String()
	if t.Kind() == parquet.FixedLenByteArray {
		name = fmt.Sprintf("FIXED_LEN_BYTE_ARRAY(%d)", t.Length())
	}
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		name += " " + lt.String()
	}
	return name
}

// inferredDataType is the Pinot data type a Parquet source type becomes
// when no schema is given.
func inferredDataType(st srcType) (pinot.DataType, error) {
	switch st.kind {
	case kindBool:
		return pinot.Boolean, nil
	case kindInt, kindUint:
		if st.bits > 32 || (st.kind == kindUint && st.bits == 32) {
			return pinot.Long, nil
		}
		return pinot.Int, nil
	case kindFloat32:
		return pinot.Float, nil
	case kindFloat64:
		return pinot.Double, nil
	case kindString, kindUUID:
		return pinot.String, nil
	case kindBinary, kindGeo:
		return pinot.Bytes, nil
	case kindDecimal:
		return pinot.BigDecimal, nil
	case kindDate:
		return pinot.Int, nil
	case kindTime:
		return pinot.Long, nil
	case kindTimestamp, kindInt96:
		return pinot.Timestamp, nil
	case kindNested:
		return pinot.JSON, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnsupportedSourceType, st.desc)
}
