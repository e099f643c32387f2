package segments

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Arrow extension type names floe understands.
const (
	arrowUUIDExt    = "arrow.uuid"
	arrowWKBExt     = "geoarrow.wkb"
	arrowVariantExt = "arrow.parquet.variant"
)

// arrowSrcType describes an Arrow column as a source type. Lists of
// primitives are repeated; lists of anything else, structs, maps and
// variants are nested (JSON text).
func arrowSrcType(dt arrow.DataType) (srcType, error) {
	switch t := dt.(type) {
	case arrow.ListLikeType:
		elem, err := arrowPrimitiveType(t.Elem())
		if err != nil || elem.kind == kindNested {
			return srcType{kind: kindNested, desc: dt.String()}, nil
		}
		elem.repeated = true
		elem.desc = dt.String()
		return elem, nil
	}
	return arrowPrimitiveType(dt)
}

// arrowPrimitiveType maps a non-list Arrow type.
func arrowPrimitiveType(dt arrow.DataType) (srcType, error) {
	st := srcType{desc: dt.String()}
	switch t := dt.(type) {
	case arrow.ExtensionType:
		switch t.ExtensionName() {
		case arrowUUIDExt:
			st.kind = kindUUID
		case arrowWKBExt:
			st.kind = kindGeo
		case arrowVariantExt:
			st.kind = kindNested
		default:
			return arrowPrimitiveType(t.StorageType())
		}
		return st, nil
	case *arrow.TimestampType:
		st.kind, st.unit = kindTimestamp, arrowUnit(t.Unit)
		return st, nil
	case *arrow.Time32Type:
		st.kind, st.unit = kindTime, arrowUnit(t.Unit)
		return st, nil
	case *arrow.Time64Type:
		st.kind, st.unit = kindTime, arrowUnit(t.Unit)
		return st, nil
	case *arrow.Decimal128Type:
		st.kind, st.scale = kindDecimal, t.Scale
		return st, nil
	case *arrow.Decimal256Type:
		st.kind, st.scale = kindDecimal, t.Scale
		return st, nil
	case *arrow.DictionaryType:
		inner, err := arrowPrimitiveType(t.ValueType)
		inner.desc = st.desc
		return inner, err
	case *arrow.StructType, *arrow.MapType, arrow.UnionType:
		st.kind = kindNested
		return st, nil
	}
	return arrowScalarType(dt.ID(), st)
}

// arrowScalarType maps the plain scalar type ids.
func arrowScalarType(id arrow.Type, st srcType) (srcType, error) {
	switch id {
	case arrow.BOOL:
		st.kind = kindBool
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		st.kind, st.bits = kindInt, map[arrow.Type]int{arrow.INT8: 8, arrow.INT16: 16, arrow.INT32: 32, arrow.INT64: 64}[id]
	case arrow.UINT8, arrow.UINT16, arrow.UINT32:
		st.kind, st.bits = kindUint, map[arrow.Type]int{arrow.UINT8: 8, arrow.UINT16: 16, arrow.UINT32: 32}[id]
	case arrow.FLOAT32:
		st.kind = kindFloat32
	case arrow.FLOAT64:
		st.kind = kindFloat64
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		st.kind = kindString
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		st.kind = kindBinary
	case arrow.DATE32, arrow.DATE64:
		st.kind = kindDate
	default:
		return st, fmt.Errorf("%w: Arrow type %s", ErrUnsupportedSourceType, st.desc)
	}
	return st, nil
}

func arrowUnit(u arrow.TimeUnit) timeUnit {
	switch u {
	case arrow.Second:
		return tuSeconds
	case arrow.Millisecond:
		return tuMillis
	case arrow.Microsecond:
		return tuMicros
	}
	return tuNanos
}
