package watcher

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/watcher/plan"
)

// deleteFilter removes from the rows a scan of one data file yields (read
// without its position and equality delete files) the rows those files
// delete (B1): a row whose position a position delete file lists for the
// data file, or whose values of an equality delete file's fields equal
// one of its keys (nulls equal nulls, as Iceberg's equality deletes
// compare). Which delete files apply, by sequence number and partition,
// the plan decided: exactly those attached to the file's scan task.
type deleteFilter struct {
	path string
	// positions are the deleted positions, sorted and distinct; next is
	// the first not yet passed.
	positions []int64
	next      int
	// seen counts the rows the scan yielded (the position of the next).
	seen, want int64
	groups     []*eqGroup
	mask       *array.BooleanBuilder
	key        []byte
}

// eqGroup are the equality delete files of one list of fields.
type eqGroup struct {
	fields []int
	names  []string // the fields' top-level column names in the scan
	cols   []int    // their indexes in the current batch's schema
	sets   []map[string]struct{}
	paths  []string // the delete files of sets, in order
}

// ownDeletes prepares floe's application of the delete files of f's
// scan task (position deletes, deletion vectors, equality deletes): it
// returns the task without them and the filter that applies them, or ok
// false when iceberg-go's scan must apply them (the task is not one whole
// file, or a delete file floe does not decode).
func ownDeletes(ctx context.Context, cache *DeleteCache, fsys iceio.IO, sc *iceberg.Schema, f plan.File) ([]table.FileScanTask, *deleteFilter, bool, error) {
	if len(f.Tasks) != 1 {
		return nil, nil, false, nil
	}
	t := f.Tasks[0]
	if t.Start != 0 {
		return nil, nil, false, nil
	}
	flt := &deleteFilter{path: t.File.FilePath(), want: t.File.Count()}
	for _, df := range t.DeleteFiles {
		pd, err := cache.posDeletesOf(ctx, fsys, df)
		if err != nil {
			return unsupported(err)
		}
		flt.positions = append(flt.positions, pd[flt.path]...)
	}
	for _, df := range t.DeletionVectorFiles {
		if ref := df.ReferencedDataFile(); ref == nil || *ref != flt.path {
			return nil, nil, false, fmt.Errorf("deletion vector %s is not one of data file %s", df.FilePath(), flt.path)
		}
		ps, err := cache.dvPositionsOf(ctx, fsys, df)
		if err != nil {
			return nil, nil, false, err
		}
		flt.positions = append(flt.positions, ps...)
	}
	slices.Sort(flt.positions)
	flt.positions = slices.Compact(flt.positions)
	for _, df := range t.EqualityDeleteFiles {
		ed, err := cache.eqDeletesOf(ctx, fsys, df)
		if err != nil {
			return unsupported(err)
		}
		if !flt.addEq(sc, df.FilePath(), ed) {
			return nil, nil, false, nil
		}
	}
	for _, g := range flt.groups {
		g.merge(cache)
	}
	t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles = nil, nil, nil
	return []table.FileScanTask{t}, flt, true, nil
}

// unsupported turns errUnsupportedDelete into a fall-back to the scan.
func unsupported(err error) ([]table.FileScanTask, *deleteFilter, bool, error) {
	if errors.Is(err, errUnsupportedDelete) {
		return nil, nil, false, nil
	}
	return nil, nil, false, err
}

// addEq adds an equality delete file's keys to the group of its fields;
// false when a field is not a top-level column of the scan's schema sc.
func (d *deleteFilter) addEq(sc *iceberg.Schema, path string, ed *eqDeletes) bool {
	for _, g := range d.groups {
		if slices.Equal(g.fields, ed.fields) {
			g.sets, g.paths = append(g.sets, ed.keys), append(g.paths, path)
			return true
		}
	}
	g := &eqGroup{fields: ed.fields, sets: []map[string]struct{}{ed.keys}, paths: []string{path}}
	for _, id := range ed.fields {
		f, ok := topLevelField(sc, id)
		if !ok || !comparedType(f.Type) {
			return false
		}
		g.names = append(g.names, f.Name)
	}
	d.groups = append(d.groups, g)
	return true
}

// merge replaces the group's sets by their union when the same delete
// files applied together to another data file before (a CDC table's older
// files share them all): one lookup per row instead of one per delete
// file. The union is kept in the delete cache (B2) under the files' paths.
func (g *eqGroup) merge(cache *DeleteCache) {
	if len(g.sets) < 2 {
		return
	}
	key := "union:" + fmt.Sprint(g.fields) + "\x00" + strings.Join(g.paths, "\x00")
	if u, ok := cache.union(key); ok {
		g.sets = []map[string]struct{}{u}
		return
	}
	if !cache.wantUnion(key) {
		return
	}
	n := 0
	for _, set := range g.sets {
		n += len(set)
	}
	u := make(map[string]struct{}, n)
	var size int64
	for _, set := range g.sets {
		for k := range set {
			if _, dup := u[k]; !dup {
				u[k] = struct{}{}
				size += int64(len(k)) + 48
			}
		}
	}
	cache.keepUnion(key, u, size)
	g.sets = []map[string]struct{}{u}
}

// topLevelField is the top-level field id of sc.
func topLevelField(sc *iceberg.Schema, id int) (iceberg.NestedField, bool) {
	for _, f := range sc.Fields() {
		if f.ID == id {
			return f, true
		}
	}
	return iceberg.NestedField{}, false
}

// comparedType reports whether floe compares equality keys of type t
// (appendKeyValue encodes the Arrow type a scan reads it as).
func comparedType(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.Int32Type, iceberg.Int64Type, iceberg.DateType, iceberg.TimeType, iceberg.TimestampType,
		iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType, iceberg.Float32Type,
		iceberg.Float64Type, iceberg.BooleanType, iceberg.DecimalType, iceberg.StringType, iceberg.BinaryType,
		iceberg.FixedType, iceberg.UUIDType:
		return true
	}
	return false
}

// wrap applies the filter to the batches of the scan; at the end, when
// positions applied, it checks that the scan yielded every row of the
// file, in order (a position is only meaningful then).
func (d *deleteFilter) wrap(ctx context.Context, batches iter.Seq2[arrow.RecordBatch, error]) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		defer d.release()
		for rec, err := range batches {
			if err != nil {
				yield(nil, err)
				return
			}
			out, err := d.apply(ctx, rec)
			if err != nil {
				yield(nil, err)
				return
			}
			if out != nil && !yield(out, nil) {
				return
			}
		}
		if err := d.checkPositions(); err != nil {
			yield(nil, err)
		}
	}
}

// empty reports whether the filter deletes nothing.
func (d *deleteFilter) empty() bool { return len(d.positions) == 0 && len(d.groups) == 0 }

func (d *deleteFilter) release() {
	if d.mask != nil {
		d.mask.Release()
		d.mask = nil
	}
}

// apply returns rec without its deleted rows (rec itself when none is,
// nil when all are); it takes over rec.
func (d *deleteFilter) apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if err := d.bind(rec.Schema()); err != nil {
		rec.Release()
		return nil, err
	}
	if d.mask == nil {
		d.mask = array.NewBooleanBuilder(memory.DefaultAllocator)
	}
	n := int(rec.NumRows())
	d.mask.Reserve(n)
	kept := 0
	for r := 0; r < n; r++ {
		del, err := d.deleted(rec, r)
		if err != nil {
			d.mask.Release()
			d.mask = nil
			rec.Release()
			return nil, err
		}
		keep := !del
		d.mask.UnsafeAppend(keep)
		if keep {
			kept++
		}
	}
	mask := d.mask.NewBooleanArray()
	defer mask.Release()
	switch kept {
	case n:
		return rec, nil
	case 0:
		rec.Release()
		return nil, nil
	}
	out, err := compute.FilterRecordBatch(ctx, rec, mask, compute.DefaultFilterOptions())
	rec.Release()
	if err != nil {
		return nil, fmt.Errorf("apply deletes to data file %s: %w", d.path, err)
	}
	return out, nil
}

// bind finds each group's columns in the batch's schema.
func (d *deleteFilter) bind(s *arrow.Schema) error {
	for _, g := range d.groups {
		g.cols = g.cols[:0]
		for _, name := range g.names {
			idx := s.FieldIndices(name)
			if len(idx) == 0 {
				return fmt.Errorf("apply equality deletes to data file %s: the scan has no column %q", d.path, name)
			}
			g.cols = append(g.cols, idx[0])
		}
	}
	return nil
}

// deleted reports whether row r of rec, the file's row d.seen, is deleted.
func (d *deleteFilter) deleted(rec arrow.RecordBatch, r int) (bool, error) {
	if d.atDeletedPosition() {
		return true, nil
	}
	for _, g := range d.groups {
		d.key = d.key[:0]
		for i, c := range g.cols {
			var ok bool
			if d.key, ok = appendKeyValue(d.key, rec.Column(c), r); !ok {
				return false, fmt.Errorf("apply equality deletes to data file %s: column %q: type %s not compared",
					d.path, g.names[i], rec.Column(c).DataType())
			}
		}
		if g.holds(d.key) {
			return true, nil
		}
	}
	return false, nil
}

// atDeletedPosition moves past the file's next row and reports whether a
// position delete deletes it.
func (d *deleteFilter) atDeletedPosition() bool {
	pos := d.seen
	d.seen++
	for d.next < len(d.positions) && d.positions[d.next] < pos {
		d.next++
	}
	return d.next < len(d.positions) && d.positions[d.next] == pos
}

// holds reports whether a delete file of g deletes key.
func (g *eqGroup) holds(key []byte) bool {
	for _, set := range g.sets {
		if _, hit := set[string(key)]; hit {
			return true
		}
	}
	return false
}

// checkPositions fails when position deletes applied and the rows read
// were not every row of the file, in order.
func (d *deleteFilter) checkPositions() error {
	if len(d.positions) > 0 && d.seen != d.want {
		return fmt.Errorf("apply position deletes to data file %s: the read gave %d rows, the file holds %d", d.path, d.seen, d.want)
	}
	return nil
}

// appendKeyValue appends value i of arr to a key in a form where equal
// Iceberg values encode alike whichever Arrow type carries them (int and
// long, float and double widen; UUIDs and fixed read as fixed-size
// binary): a tag, then the value. ok is false for a type floe does not
// compare.
func appendKeyValue(buf []byte, arr arrow.Array, i int) ([]byte, bool) {
	if arr.IsNull(i) {
		return append(buf, 'n'), true
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	switch a := arr.(type) {
	case *array.Int32:
		return appendKeyInt(buf, int64(a.Value(i))), true
	case *array.Int64:
		return appendKeyInt(buf, a.Value(i)), true
	case *array.Date32:
		return appendKeyInt(buf, int64(a.Value(i))), true
	case *array.Time64:
		return appendKeyInt(buf, int64(a.Value(i))), true
	case *array.Timestamp:
		return appendKeyInt(buf, int64(a.Value(i))), true
	case *array.Float32:
		return appendKeyFloat(buf, float64(a.Value(i))), true
	case *array.Float64:
		return appendKeyFloat(buf, a.Value(i)), true
	case *array.Boolean:
		if a.Value(i) {
			return append(buf, 'b', 1), true
		}
		return append(buf, 'b', 0), true
	case *array.Decimal128:
		v := a.Value(i)
		buf = binary.BigEndian.AppendUint64(append(buf, 'd'), uint64(v.HighBits()))
		return binary.BigEndian.AppendUint64(buf, v.LowBits()), true
	}
	return appendKeyBinary(buf, arr, i)
}

// appendKeyBinary appends value i of a string or binary array.
func appendKeyBinary(buf []byte, arr arrow.Array, i int) ([]byte, bool) {
	switch a := arr.(type) {
	case *array.String:
		return appendKeyBytes(buf, a.Value(i)), true
	case *array.LargeString:
		return appendKeyBytes(buf, a.Value(i)), true
	case *array.Binary:
		return appendKeyBytes(buf, a.Value(i)), true
	case *array.LargeBinary:
		return appendKeyBytes(buf, a.Value(i)), true
	case *array.FixedSizeBinary:
		return appendKeyBytes(buf, a.Value(i)), true
	}
	return buf, false
}

// appendKeyBytes appends a length-prefixed string or byte value.
func appendKeyBytes[T string | []byte](buf []byte, b T) []byte {
	buf = binary.AppendUvarint(append(buf, 's'), uint64(len(b)))
	return append(buf, b...)
}

func appendKeyInt(buf []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(buf, 'i'), uint64(v))
}

// appendKeyFloat encodes a float by its bits, every NaN alike.
func appendKeyFloat(buf []byte, v float64) []byte {
	if math.IsNaN(v) {
		v = math.NaN()
	}
	return binary.BigEndian.AppendUint64(append(buf, 'f'), math.Float64bits(v))
}
