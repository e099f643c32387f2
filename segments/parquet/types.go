package parquet

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// parquetLeafType describes a Parquet primitive column as a source type;
// el is the column's schema element in the footer.
func parquetLeafType(col *parquet.Column, el format.SchemaElement) (convert.Type, error) {
	t := col.Type()
	st := convert.Type{Desc: parquetTypeName(t)}
	if pt, ok := el.Type.Get(); ok && (pt < format.Boolean || pt > format.FixedLenByteArray) {
		return st, fmt.Errorf("%w: Parquet physical type %d (the format defines 0 to 7)", segments.ErrUnsupportedSourceType, pt)
	}
	if _, ok := el.LogicalType.Value.(*format.Float16Type); ok && t.Kind() == parquet.FixedLenByteArray && t.Length() == 2 {
		st.Kind, st.Desc = convert.KindFloat16, "FIXED_LEN_BYTE_ARRAY(2) FLOAT16"
		return st, nil
	}
	lt := t.LogicalType()
	if lt != nil && lt.Value != nil {
		if ok, err := parquetLogicalType(t, lt, &st); ok || err != nil {
			return st, err
		}
	}
	switch t.Kind() {
	case parquet.Boolean:
		st.Kind = convert.KindBool
	case parquet.Int32:
		st.Kind, st.Bits = convert.KindInt, 32
	case parquet.Int64:
		st.Kind, st.Bits = convert.KindInt, 64
	case parquet.Int96:
		st.Kind = convert.KindInt96
	case parquet.Float:
		st.Kind = convert.KindFloat32
	case parquet.Double:
		st.Kind = convert.KindFloat64
	case parquet.ByteArray, parquet.FixedLenByteArray:
		st.Kind = convert.KindBinary
	default:
		return st, fmt.Errorf("%w: Parquet type %s", segments.ErrUnsupportedSourceType, st.Desc)
	}
	return st, nil
}

// parquetLogicalType maps an annotated primitive; ok is false when the
// annotation does not change how values are read.
func parquetLogicalType(t parquet.Type, lt *format.LogicalType, st *convert.Type) (bool, error) {
	switch v := lt.Value.(type) {
	case *format.StringType, *format.EnumType, *format.JsonType:
		st.Kind = convert.KindString
	case *format.UUIDType:
		st.Kind = convert.KindUUID
	case *format.DecimalType:
		st.Kind, st.Scale = convert.KindDecimal, v.Scale
	case *format.DateType:
		st.Kind = convert.KindDate
	case *format.TimeType:
		st.Kind, st.Unit = convert.KindTime, parquetUnit(v.Unit)
	case *format.TimestampType:
		st.Kind, st.Unit = convert.KindTimestamp, parquetUnit(v.Unit)
	case *format.IntType:
		st.Kind, st.Bits = convert.KindInt, int(v.BitWidth)
		if !v.IsSigned {
			st.Kind = convert.KindUint
			if v.BitWidth == 64 {
				return true, fmt.Errorf("%w: Parquet type %s (unsigned 64-bit)", segments.ErrUnsupportedSourceType, st.Desc)
			}
		}
	case *format.GeometryType, *format.GeographyType:
		st.Kind = convert.KindGeo
	case *format.BsonType:
		st.Kind = convert.KindBinary
	case *format.Float16Type:
		return true, fmt.Errorf("%w: Parquet type %s", segments.ErrUnsupportedSourceType, st.Desc)
	default:
		return false, nil
	}
	return true, nil
}

func parquetUnit(u format.TimeUnit) convert.TimeUnit {
	switch u.Value.(type) {
	case *format.MilliSeconds:
		return convert.Millis
	case *format.NanoSeconds:
		return convert.Nanos
	}
	return convert.Micros
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
func inferredDataType(st convert.Type) (spec.DataType, error) {
	switch st.Kind {
	case convert.KindBool:
		return spec.Boolean, nil
	case convert.KindInt, convert.KindUint:
		if st.Bits > 32 || (st.Kind == convert.KindUint && st.Bits == 32) {
			return spec.Long, nil
		}
		return spec.Int, nil
	case convert.KindFloat32, convert.KindFloat16:
		return spec.Float, nil
	case convert.KindFloat64:
		return spec.Double, nil
	case convert.KindString, convert.KindUUID:
		return spec.String, nil
	case convert.KindBinary, convert.KindGeo:
		return spec.Bytes, nil
	case convert.KindDecimal:
		return spec.BigDecimal, nil
	case convert.KindDate:
		return spec.Int, nil
	case convert.KindTime:
		return spec.Long, nil
	case convert.KindTimestamp, convert.KindInt96:
		return spec.Timestamp, nil
	case convert.KindNested:
		return spec.JSON, nil
	}
	return "", fmt.Errorf("%w: %s", segments.ErrUnsupportedSourceType, st.Desc)
}
