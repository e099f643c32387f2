package arrow

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
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
func arrowSrcType(dt arrow.DataType) (convert.Type, error) {
	switch t := dt.(type) {
	case arrow.ListLikeType:
		elem, err := arrowPrimitiveType(t.Elem())
		if err != nil || elem.Kind == convert.KindNested {
			return convert.Type{Kind: convert.KindNested, Desc: dt.String()}, nil
		}
		elem.Repeated = true
		elem.Desc = dt.String()
		return elem, nil
	}
	return arrowPrimitiveType(dt)
}

// arrowPrimitiveType maps a non-list Arrow type.
func arrowPrimitiveType(dt arrow.DataType) (convert.Type, error) {
	st := convert.Type{Desc: dt.String()}
	switch t := dt.(type) {
	case arrow.ExtensionType:
		switch t.ExtensionName() {
		case arrowUUIDExt:
			st.Kind = convert.KindUUID
		case arrowWKBExt:
			st.Kind = convert.KindGeo
		case arrowVariantExt:
			st.Kind = convert.KindNested
		default:
			return arrowPrimitiveType(t.StorageType())
		}
		return st, nil
	case *arrow.TimestampType:
		st.Kind, st.Unit = convert.KindTimestamp, convert.ArrowUnit(t.Unit)
		return st, nil
	case *arrow.Time32Type:
		st.Kind, st.Unit = convert.KindTime, convert.ArrowUnit(t.Unit)
		return st, nil
	case *arrow.Time64Type:
		st.Kind, st.Unit = convert.KindTime, convert.ArrowUnit(t.Unit)
		return st, nil
	case *arrow.Decimal128Type:
		st.Kind, st.Scale = convert.KindDecimal, t.Scale
		return st, nil
	case *arrow.Decimal256Type:
		st.Kind, st.Scale = convert.KindDecimal, t.Scale
		return st, nil
	case *arrow.DictionaryType:
		inner, err := arrowPrimitiveType(t.ValueType)
		inner.Desc = st.Desc
		return inner, err
	case *arrow.StructType, *arrow.MapType, arrow.UnionType:
		st.Kind = convert.KindNested
		return st, nil
	}
	return arrowScalarType(dt.ID(), st)
}

// arrowScalarType maps the plain scalar type ids.
func arrowScalarType(id arrow.Type, st convert.Type) (convert.Type, error) {
	switch id {
	case arrow.BOOL:
		st.Kind = convert.KindBool
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		st.Kind, st.Bits = convert.KindInt, map[arrow.Type]int{arrow.INT8: 8, arrow.INT16: 16, arrow.INT32: 32, arrow.INT64: 64}[id]
	case arrow.UINT8, arrow.UINT16, arrow.UINT32:
		st.Kind, st.Bits = convert.KindUint, map[arrow.Type]int{arrow.UINT8: 8, arrow.UINT16: 16, arrow.UINT32: 32}[id]
	case arrow.FLOAT32:
		st.Kind = convert.KindFloat32
	case arrow.FLOAT64:
		st.Kind = convert.KindFloat64
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		st.Kind = convert.KindString
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		st.Kind = convert.KindBinary
	case arrow.DATE32, arrow.DATE64:
		st.Kind = convert.KindDate
	default:
		return st, fmt.Errorf("%w: Arrow type %s", segments.ErrUnsupportedSourceType, st.Desc)
	}
	return st, nil
}
