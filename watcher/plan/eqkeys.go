package plan

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
)

// keyClass is how the planner compares the values of an equality field
// with a data file's column bounds (P2).
type keyClass uint8

const (
	noClass    keyClass = iota // not compared (float, decimal, nested...): the field prunes nothing
	intClass                   // int, long, date, time, timestamps: 4- or 8-byte little-endian bounds
	bytesClass                 // string, binary, fixed, uuid: unsigned byte order
	boolClass                  // boolean: one byte
)

// classOf is the key class of an Iceberg type.
func classOf(t iceberg.Type) keyClass {
	switch t.(type) {
	case iceberg.Int32Type, iceberg.Int64Type, iceberg.DateType, iceberg.TimeType, iceberg.TimestampType,
		iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return intClass
	case iceberg.StringType, iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType:
		return bytesClass
	case iceberg.BooleanType:
		return boolClass
	}
	return noClass
}

// orderInt encodes v so that byte order is numeric order.
func orderInt(v int64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v)^(1<<63))
	return string(b[:])
}

// boundKey turns a serialized column bound (Iceberg's single-value
// serialization, as a manifest records it) into the comparable form of
// its class; ok is false when the bound cannot be used, which counts as
// no bound. An empty bytes bound is not used either (as a lower bound it
// bounds nothing; as an upper bound it is kept conservative), so that a
// missing and an empty bound decide alike wherever the bounds were
// stored.
func boundKey(c keyClass, b []byte) (string, bool) {
	switch c {
	case intClass:
		switch len(b) {
		case 4:
			return orderInt(int64(int32(binary.LittleEndian.Uint32(b)))), true
		case 8:
			return orderInt(int64(binary.LittleEndian.Uint64(b))), true
		}
	case bytesClass:
		return string(b), len(b) > 0
	case boolClass:
		if len(b) == 1 {
			return boolKey(b[0] != 0), true
		}
	}
	return "", false
}

func boolKey(v bool) string {
	if v {
		return "\x01"
	}
	return "\x00"
}

// eqKeys are the keys an equality delete file deletes, in comparable
// form, sorted by their first compared field.
type eqKeys struct {
	// fields are the delete's equality field ids that the planner
	// compares (those of a class), in the delete's order.
	fields []int
	// rows holds, per key, its value of every compared field.
	rows [][]string
	// wild: a key cannot be compared (a null or a value of another type
	// than its field's class), or no field is compared. The delete then
	// may touch every file it reaches by sequence number and partition.
	wild bool
}

// size estimates the memory the keys hold.
func (k *eqKeys) size() int64 {
	n := int64(64 + 8*len(k.fields))
	for _, r := range k.rows {
		n += 24 + int64(16*len(r))
		for _, v := range r {
			n += int64(len(v))
		}
	}
	return n
}

// fileBounds are a data file's bounds of the compared fields, comparable.
type fileBounds map[int]colBounds

type colBounds struct {
	lower, upper       string
	hasLower, hasUpper bool
}

// holds reports whether v may lie within the bounds.
func (b colBounds) holds(v string) bool {
	return (!b.hasLower || b.lower <= v) && (!b.hasUpper || v <= b.upper)
}

// mayTouch reports whether a key of the delete may equal a row of a file
// with these bounds. A field without bounds (not recorded for the file,
// or not written by its writer) rules nothing out.
func (k *eqKeys) mayTouch(b fileBounds) bool {
	if k.wild {
		return true
	}
	lo, hi := k.span(b)
	for i := lo; i < hi; i++ {
		if k.rowMayTouch(k.rows[i], b) {
			return true
		}
	}
	return false
}

// span is the range of rows whose first field lies within the file's
// bounds of that field.
func (k *eqKeys) span(b fileBounds) (lo, hi int) {
	lo, hi = 0, len(k.rows)
	if first, ok := b[k.fields[0]]; ok {
		if first.hasLower {
			lo = sort.Search(len(k.rows), func(i int) bool { return k.rows[i][0] >= first.lower })
		}
		if first.hasUpper {
			hi = sort.Search(len(k.rows), func(i int) bool { return k.rows[i][0] > first.upper })
		}
	}
	return lo, hi
}

// rowMayTouch reports whether a key whose first field is in bounds lies
// within the file's bounds of its other fields.
func (k *eqKeys) rowMayTouch(row []string, b fileBounds) bool {
	for j := 1; j < len(k.fields); j++ {
		if cb, ok := b[k.fields[j]]; ok && !cb.holds(row[j]) {
			return false
		}
	}
	return true
}

// keysCacheKey names a delete file's decoded keys in the planner's cache:
// the file's path (delete files are immutable) and the classes its
// fields were decoded with.
func keysCacheKey(path string, fields []int, classes map[int]keyClass) string {
	var b strings.Builder
	b.WriteString("eqkeys:")
	b.WriteString(path)
	for _, id := range fields {
		fmt.Fprintf(&b, "#%d=%d", id, classes[id])
	}
	return b.String()
}

// loadKeys reads the keys of every live equality delete file: from the
// planner's cache, else from the file (once per run and file: P2).
func (j *job) loadKeys(ctx context.Context, dels []liveDelete) error {
	for i := range dels {
		d := &dels[i]
		if d.kind != eqDelete {
			continue
		}
		ids := d.df.EqualityFieldIDs()
		key := keysCacheKey(d.path, ids, j.classes)
		if v, ok := j.p.cache.get(key); ok {
			d.keys = v.(*eqKeys)
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := readKeys(ctx, j, d.path, ids)
		if err != nil {
			return fmt.Errorf("read keys of equality delete file %s: %w", d.path, err)
		}
		j.p.cache.put(key, k, k.size()+int64(len(key)))
		d.keys = k
	}
	return nil
}

// readKeys reads the compared fields of an equality delete file.
func readKeys(ctx context.Context, j *job, path string, ids []int) (*eqKeys, error) {
	k := &eqKeys{}
	for _, id := range ids {
		if j.classes[id] != noClass {
			k.fields = append(k.fields, id)
		}
	}
	if len(k.fields) == 0 {
		k.wild = true
		return k, nil
	}
	kf, err := j.openKeyFile(path, k.fields)
	if err != nil {
		return nil, err
	}
	defer kf.Close()
	pf, fr, cols := kf.pf, kf.fr, kf.cols
	groups := make([]int, pf.NumRowGroups())
	for i := range groups {
		groups[i] = i
	}
	tbl, err := fr.ReadRowGroups(ctx, cols, groups)
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	return k, k.fill(tbl, j.classes)
}

// keyFile is a Parquet file opened to read the columns of key fields.
type keyFile struct {
	f    io.Closer
	pf   *file.Reader
	fr   *pqarrow.FileReader
	cols []int // the leaf column of each field, in the fields' order
}

// openKeyFile opens the Parquet file at path (an equality delete file, or
// a data file whose key index is built) to read the columns of fields.
func (j *job) openKeyFile(path string, fields []int) (*keyFile, error) {
	f, err := j.fs.Open(path)
	if err != nil {
		return nil, err
	}
	pf, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	kf := &keyFile{f: f, pf: pf}
	if kf.fr, err = pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator); err != nil {
		kf.Close()
		return nil, err
	}
	if kf.cols, err = keyColumns(kf.fr, fields); err != nil {
		kf.Close()
		return nil, err
	}
	return kf, nil
}

// Close closes the file.
func (kf *keyFile) Close() {
	kf.pf.Close()
	kf.f.Close()
}

// keyColumns finds the leaf column of each field id among the file's
// top-level columns.
func keyColumns(fr *pqarrow.FileReader, ids []int) ([]int, error) {
	byID := map[int]int{}
	for _, sf := range fr.Manifest.Fields {
		if !sf.IsLeaf() {
			continue
		}
		if v, ok := sf.Field.Metadata.GetValue("PARQUET:field_id"); ok {
			if id, err := strconv.Atoi(v); err == nil {
				byID[id] = sf.ColIndex
			}
		}
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		col, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("no top-level column has equality field id %d", id)
		}
		out[i] = col
	}
	return out, nil
}

// fill decodes the rows of tbl, whose columns are k.fields in order, and
// sorts them.
func (k *eqKeys) fill(tbl arrow.Table, classes map[int]keyClass) error {
	n := int(tbl.NumRows())
	k.rows = make([][]string, n)
	flat := make([]string, n*len(k.fields))
	for r := range k.rows {
		k.rows[r] = flat[r*len(k.fields) : (r+1)*len(k.fields)]
	}
	for c, id := range k.fields {
		r := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i, r = i+1, r+1 {
				v, ok := keyValue(chunk, i, classes[id])
				if !ok {
					k.wild, k.rows = true, nil
					return nil
				}
				k.rows[r][c] = v
			}
		}
	}
	slices.SortFunc(k.rows, func(a, b []string) int { return slices.Compare(a, b) })
	return nil
}

// keyValue is value i of arr in the comparable form of class c; ok is
// false for a null or a type that does not fit the class.
func keyValue(arr arrow.Array, i int, c keyClass) (string, bool) {
	if arr.IsNull(i) {
		return "", false
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	switch c {
	case intClass:
		return intValue(arr, i)
	case bytesClass:
		switch a := arr.(type) {
		case *array.String:
			return a.Value(i), true
		case *array.LargeString:
			return a.Value(i), true
		case *array.Binary:
			return string(a.Value(i)), true
		case *array.LargeBinary:
			return string(a.Value(i)), true
		case *array.FixedSizeBinary:
			return string(a.Value(i)), true
		}
	case boolClass:
		if a, ok := arr.(*array.Boolean); ok {
			return boolKey(a.Value(i)), true
		}
	}
	return "", false
}

func intValue(arr arrow.Array, i int) (string, bool) {
	switch a := arr.(type) {
	case *array.Int32:
		return orderInt(int64(a.Value(i))), true
	case *array.Int64:
		return orderInt(a.Value(i)), true
	case *array.Date32:
		return orderInt(int64(a.Value(i))), true
	case *array.Time64:
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			return orderInt(int64(a.Value(i))), true
		}
	case *array.Timestamp:
		// Iceberg's timestamp and timestamptz are microseconds (the
		// nanosecond types read as wild: a unit floe does not check).
		if a.DataType().(*arrow.TimestampType).Unit == arrow.Microsecond {
			return orderInt(int64(a.Value(i))), true
		}
	}
	return "", false
}
