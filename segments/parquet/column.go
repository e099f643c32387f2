package parquet

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/floehq/floe/segments"
	"github.com/floehq/floe/segments/internal/convert"
)

// pqValues holds one page's (or dictionary's) decoded values, dense (no
// slots for nulls), in the page's physical type.
type pqValues struct {
	kind  parquet.Kind
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	bytes [][]byte
	i96   [][3]uint32
	bools []bool
	n     int
}

// load decodes the typed values of a page that is not dictionary-encoded.
func (pv *pqValues) load(page parquet.Page) error {
	data := page.Data()
	pv.kind = page.Type().Kind()
	switch pv.kind {
	case parquet.Int32:
		pv.i32 = data.Int32()
		pv.n = len(pv.i32)
	case parquet.Int64:
		pv.i64 = data.Int64()
		pv.n = len(pv.i64)
	case parquet.Float:
		pv.f32 = data.Float()
		pv.n = len(pv.f32)
	case parquet.Double:
		pv.f64 = data.Double()
		pv.n = len(pv.f64)
	case parquet.ByteArray:
		buf, off := data.ByteArray()
		pv.bytes = pv.bytes[:0]
		for i := 0; i+1 < len(off); i++ {
			if off[i] > off[i+1] || int(off[i+1]) > len(buf) {
				return fmt.Errorf("%w: byte array offsets", segments.ErrCorruptSource)
			}
			pv.bytes = append(pv.bytes, buf[off[i]:off[i+1]:off[i+1]])
		}
		pv.n = len(pv.bytes)
	case parquet.FixedLenByteArray:
		buf, size := data.FixedLenByteArray()
		pv.bytes = pv.bytes[:0]
		for i := 0; size > 0 && i+size <= len(buf); i += size {
			pv.bytes = append(pv.bytes, buf[i:i+size:i+size])
		}
		pv.n = len(pv.bytes)
	case parquet.Int96:
		pv.i96 = pv.i96[:0]
		for _, w := range data.Int96() {
			if err := checkInt96(w); err != nil {
				return err
			}
			pv.i96 = append(pv.i96, [3]uint32(w))
		}
		pv.n = len(pv.i96)
	case parquet.Boolean:
		return pv.loadBooleans(page)
	default:
		return fmt.Errorf("%w: Parquet page of type %s", segments.ErrUnsupportedSourceType, pv.kind)
	}
	return nil
}

// loadBooleans reads a boolean page through the generic value reader.
func (pv *pqValues) loadBooleans(page parquet.Page) error {
	pv.bools = pv.bools[:0]
	buf := make([]parquet.Value, 1024)
	r := page.Values()
	for {
		n, err := r.ReadValues(buf)
		for _, v := range buf[:n] {
			if !v.IsNull() {
				pv.bools = append(pv.bools, v.Boolean())
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: read boolean page: %v", segments.ErrCorruptSource, err)
		}
		if n == 0 {
			break
		}
	}
	pv.n = len(pv.bools)
	return nil
}

// convert appends values [start, start+count) through conv.
func (pv *pqValues) convert(conv *convert.Converter, v *segments.Vector, start, count int, wide *[]int64) {
	end := start + count
	switch pv.kind {
	case parquet.Int32:
		conv.AppendInt32s(v, pv.i32[start:end], wide)
	case parquet.Int64:
		conv.AppendInt64s(v, pv.i64[start:end])
	case parquet.Float:
		conv.AppendFloat32s(v, pv.f32[start:end])
	case parquet.Double:
		conv.AppendFloat64s(v, pv.f64[start:end])
	case parquet.ByteArray, parquet.FixedLenByteArray:
		conv.AppendByteSlices(v, pv.bytes[start:end])
	case parquet.Int96:
		conv.AppendInt96s(v, pv.i96[start:end])
	case parquet.Boolean:
		conv.AppendBools(v, pv.bools[start:end])
	}
}

// nanosPerDay bounds an INT96 timestamp's time of day.
const nanosPerDay = 86_400_000_000_000

// checkInt96 refuses an INT96 timestamp whose time of day (nanoseconds,
// the low 8 bytes) is not within one day: such a value has no instant,
// and reading it anyway would shift it by days.
func checkInt96(w deprecated.Int96) error {
	if nanos := uint64(w[1])<<32 | uint64(w[0]); nanos >= nanosPerDay {
		return fmt.Errorf("%w: INT96 timestamp with time of day %d ns (must be below %d)", segments.ErrCorruptSource, int64(nanos), int64(nanosPerDay))
	}
	return nil
}
