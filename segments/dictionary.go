package segments

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"math"
	"math/big"
	"slices"
	"strings"
	"unsafe"

	"github.com/floehq/floe/pinot/spec"
)

// numDict collects the distinct values of a fixed-width column in first-seen
// order and hands out provisional ids; sort assigns the final ids.
//
// A high-cardinality column switches to row mode (maybeToRows): the map is
// dropped and every value goes, in row order, to a spill file (native byte
// order, read back by this process only); dictionary_rows.go turns the
// spill into the sorted distinct values and, only when the column keeps a
// dictionary, each value's id.
type numDict[T int32 | int64 | float32 | float64] struct {
	m       map[T]int32
	vals    []T
	rowMode bool
	buf     []T    // row mode: values not yet spilled
	sp      *spill // row mode: spilled values
	nRows   int    // row mode: values spilled so far
	err     error  // row mode: sticky spill error
	inOrder bool   // row mode: spilled values were non-decreasing in row order
}

// rowModeMin is the distinct count above which a column may switch to row
// mode (when more than half its values are distinct).
const rowModeMin = 1 << 16

// rowBuf is how many values a row-mode column buffers between spill writes.
const rowBuf = 1 << 14

func newNumDict[T int32 | int64 | float32 | float64]() *numDict[T] {
	return &numDict[T]{m: make(map[T]int32, 1024)}
}

func (d *numDict[T]) id(v T) int32 {
	if d.rowMode {
		d.buf = append(d.buf, v)
		if len(d.buf) == cap(d.buf) {
			d.flushRows()
		}
		return -1
	}
	if id, ok := d.m[v]; ok {
		return id
	}
	id := int32(len(d.vals))
	d.m[v] = id
	d.vals = append(d.vals, v)
	return id
}

// valueBytes views values as their in-memory bytes.
func valueBytes[T int32 | int64 | float32 | float64](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}

func (d *numDict[T]) flushRows() {
	if d.err == nil {
		_, d.err = d.sp.Write(valueBytes(d.buf))
	}
	d.nRows += len(d.buf)
	d.buf = d.buf[:0]
}

// maybeToRows switches to row mode when the dictionary doesn't pay off (or
// force); ids are the provisional ids of the entries so far.
func (d *numDict[T]) maybeToRows(ids []int32, force bool, dir string) (bool, error) {
	if d.rowMode || (!force && (len(d.vals) <= rowModeMin || len(d.vals)*2 <= len(ids))) {
		return false, nil
	}
	sp, err := newSpill(dir)
	if err != nil {
		return false, err
	}
	d.sp, d.rowMode, d.buf = sp, true, make([]T, 0, rowBuf)
	for _, id := range ids {
		d.buf = append(d.buf, d.vals[id])
		if len(d.buf) == cap(d.buf) {
			d.flushRows()
		}
	}
	d.vals, d.m = nil, nil
	return true, d.err
}

// sort orders the values ascending (NaN and -0.0 never get here) and
// returns remap[provisionalId] = final id.
func (d *numDict[T]) sort() []int32 {
	perm := make([]int32, len(d.vals))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int { return cmp.Compare(d.vals[a], d.vals[b]) })
	remap := make([]int32, len(perm))
	sorted := make([]T, len(perm))
	for newID, old := range perm {
		remap[old] = int32(newID)
		sorted[newID] = d.vals[old]
	}
	d.vals, d.m = sorted, nil
	return remap
}

// sort orders values by the stored type's order and returns the remap.
func (d *bytesDict) sort(t spec.DataType) []int32 {
	if d.sorted {
		return nil
	}
	if t.StoredType() != spec.BigDecimal {
		return d.sortOrdered(d.utf16Order(t))
	}
	keys := make([]decKey, len(d.vals))
	for i, v := range d.vals {
		keys[i].u, keys[i].scale = decodeDecimalKey([]byte(v))
	}
	return d.sortEntries(func(a, b dictEntry) int { return compareDecimal(&keys[a.id], &keys[b.id]) })
}

// utf16Order reports whether a STRING/JSON/BYTES dictionary sorts in UTF-16
// order: strings with chars >= U+E000; otherwise byte order is the order.
func (d *bytesDict) utf16Order(t spec.DataType) bool {
	return t.StoredType() == spec.String && d.high
}

// sortOrdered orders values in UTF-16 or byte order and returns the remap.
func (d *bytesDict) sortOrdered(utf16 bool) []int32 {
	if utf16 {
		return d.sortFunc(compareUTF16)
	}
	return d.sortBytes()
}

// sortBytes orders values by bytes, comparing 16-byte big-endian prefixes
// held in the sort entries first, so most comparisons never leave them.
func (d *bytesDict) sortBytes() []int32 {
	type entry struct {
		k1, k2 uint64
		id     int32
	}
	es := make([]entry, len(d.vals))
	for i, v := range d.vals {
		var b [16]byte
		copy(b[:], v) // shorter values pad with 0, which sorts first
		es[i] = entry{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:]), int32(i)}
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.k1 != b.k1 {
			return cmp.Compare(a.k1, b.k1)
		}
		if a.k2 != b.k2 {
			return cmp.Compare(a.k2, b.k2)
		}
		return strings.Compare(d.vals[a.id], d.vals[b.id])
	})
	remap := make([]int32, len(es))
	sorted := make([]string, len(es))
	for newID, e := range es {
		remap[e.id] = int32(newID)
		sorted[newID] = d.vals[e.id]
	}
	d.vals, d.tab = sorted, nil
	return remap
}

// sortFunc orders values by cmp and returns the remap.
func (d *bytesDict) sortFunc(cmp func(a, b string) int) []int32 {
	return d.sortEntries(func(a, b dictEntry) int { return cmp(a.s, b.s) })
}

// dictEntry is a value with its provisional id, while sorting.
type dictEntry struct {
	s  string
	id int32
}

// sortEntries orders values by cmp and returns the remap.
func (d *bytesDict) sortEntries(cmp func(a, b dictEntry) int) []int32 {
	es := make([]dictEntry, len(d.vals))
	for i, v := range d.vals {
		es[i] = dictEntry{v, int32(i)}
	}
	slices.SortFunc(es, cmp)
	remap := make([]int32, len(es))
	for newID, e := range es {
		remap[e.id] = int32(newID)
		d.vals[newID] = e.s
	}
	d.tab = nil
	return remap
}

type decKey struct {
	u     *big.Int
	scale int
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// compareDecimal compares like BigDecimal.compareTo.
func compareDecimal(a, b *decKey) int {
	if sa, sb := a.u.Sign(), b.u.Sign(); sa != sb || sa == 0 {
		return cmp.Compare(sa, sb)
	}
	if a.scale == b.scale {
		return a.u.Cmp(b.u)
	}
	if a.scale < b.scale {
		x := new(big.Int).Mul(a.u, pow10(b.scale-a.scale))
		return x.Cmp(b.u)
	}
	y := new(big.Int).Mul(b.u, pow10(a.scale-b.scale))
	return a.u.Cmp(y)
}

// ---- dictionary file writers (doc.go, "Dictionary") ----

func writeNumDict[T int32 | int64 | float32 | float64](w io.Writer, vals []T) error {
	var size int
	switch any(vals).(type) {
	case []int32, []float32:
		size = 4
	default:
		size = 8
	}
	buf := make([]byte, 0, 64<<10)
	for _, v := range vals {
		switch x := any(v).(type) {
		case int32:
			buf = binary.BigEndian.AppendUint32(buf, uint32(x))
		case int64:
			buf = binary.BigEndian.AppendUint64(buf, uint64(x))
		case float32:
			buf = binary.BigEndian.AppendUint32(buf, math.Float32bits(x))
		case float64:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(x))
		}
		if len(buf)+size > cap(buf) {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// writeFixedBytesDict writes entries right-padded with 0x00 to width.
func writeFixedBytesDict(w io.Writer, vals []string, width int) error {
	buf := make([]byte, 0, 64<<10)
	for _, v := range vals {
		if len(buf)+width > cap(buf) && len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(buf, v...)
		for i := len(v); i < width; i++ {
			buf = append(buf, 0)
		}
	}
	_, err := w.Write(buf)
	return err
}

// varDictMagic is the var-length dictionary header magic ".vl;" (format: never change).
var varDictMagic = []byte{0x2E, 0x76, 0x6C, 0x3B}

// writeVarBytesDict writes the ".vl;" var-length layout with absolute offsets.
func writeVarBytesDict(w io.Writer, vals []string) error {
	n := len(vals)
	hdr := make([]byte, 0, 16+4*(n+1))
	hdr = append(hdr, varDictMagic...)
	hdr = binary.BigEndian.AppendUint32(hdr, 1)
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(n))
	hdr = binary.BigEndian.AppendUint32(hdr, 16)
	off := uint32(16 + 4*(n+1))
	for _, v := range vals {
		hdr = binary.BigEndian.AppendUint32(hdr, off)
		off += uint32(len(v))
	}
	hdr = binary.BigEndian.AppendUint32(hdr, off)
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, v := range vals {
		buf.WriteString(v)
		if buf.Len() >= 64<<10 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// varDictSize is the byte size of the var-length form.
func varDictSize(n int, total int64) int64 { return 16 + 4*int64(n+1) + total }
