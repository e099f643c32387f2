package watcher

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
)

// keyOf encodes value i of the array a builds.
func keyOf(t *testing.T, build func(memory.Allocator) arrow.Array, i int) string {
	t.Helper()
	arr := build(memory.DefaultAllocator)
	defer arr.Release()
	b, ok := appendKeyValue(nil, arr, i)
	if !ok {
		t.Fatalf("type %s not compared", arr.DataType())
	}
	return string(b)
}

func int32s(vs ...int32) func(memory.Allocator) arrow.Array {
	return func(m memory.Allocator) arrow.Array {
		b := array.NewInt32Builder(m)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
}

func int64s(valid []bool, vs ...int64) func(memory.Allocator) arrow.Array {
	return func(m memory.Allocator) arrow.Array {
		b := array.NewInt64Builder(m)
		defer b.Release()
		b.AppendValues(vs, valid)
		return b.NewArray()
	}
}

func strs(vs ...string) func(memory.Allocator) arrow.Array {
	return func(m memory.Allocator) arrow.Array {
		b := array.NewStringBuilder(m)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
}

func bins(vs ...[]byte) func(memory.Allocator) arrow.Array {
	return func(m memory.Allocator) arrow.Array {
		b := array.NewBinaryBuilder(m, arrow.BinaryTypes.Binary)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
}

func float32s(vs ...float32) func(memory.Allocator) arrow.Array {
	return func(m memory.Allocator) arrow.Array {
		b := array.NewFloat32Builder(m)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
}

func float64s(vs ...float64) func(memory.Allocator) arrow.Array {
	return func(m memory.Allocator) arrow.Array {
		b := array.NewFloat64Builder(m)
		defer b.Release()
		b.AppendValues(vs, nil)
		return b.NewArray()
	}
}

func decimals(vs ...int64) func(memory.Allocator) arrow.Array {
	return func(m memory.Allocator) arrow.Array {
		b := array.NewDecimal128Builder(m, &arrow.Decimal128Type{Precision: 10, Scale: 2})
		defer b.Release()
		for _, v := range vs {
			b.Append(decimal128.FromI64(v))
		}
		return b.NewArray()
	}
}

// Equal Iceberg values encode alike whichever Arrow type carries them (an
// int field promoted to long reads as Int32 from an old delete file and
// Int64 from the scan; float to double likewise; a string and its bytes),
// and distinct values, nulls and types encode apart (B1).
func TestAppendKeyValue(t *testing.T) {
	same := [][2]string{
		{keyOf(t, int32s(7), 0), keyOf(t, int64s(nil, 7), 0)},
		{keyOf(t, int32s(-1), 0), keyOf(t, int64s(nil, -1), 0)},
		{keyOf(t, float32s(1.5), 0), keyOf(t, float64s(1.5), 0)},
		{keyOf(t, strs("abc"), 0), keyOf(t, bins([]byte("abc")), 0)},
		{keyOf(t, decimals(12345), 0), keyOf(t, decimals(12345), 0)},
	}
	for i, p := range same {
		if p[0] != p[1] {
			t.Errorf("pair %d: %q and %q differ", i, p[0], p[1])
		}
	}
	distinct := []string{
		keyOf(t, int64s(nil, 7), 0), keyOf(t, int64s(nil, 8), 0), keyOf(t, int64s([]bool{false}, 0), 0),
		keyOf(t, strs(""), 0), keyOf(t, strs("7"), 0), keyOf(t, float64s(7), 0), keyOf(t, decimals(7), 0),
		keyOf(t, decimals(-7), 0),
	}
	seen := map[string]int{}
	for i, k := range distinct {
		if j, dup := seen[k]; dup {
			t.Errorf("values %d and %d encode alike: %q", j, i, k)
		}
		seen[k] = i
	}
	// Keys of two fields concatenate without ambiguity: ("ab","c") ≠ ("a","bc").
	ab, _ := appendKeyValue([]byte(keyOf(t, strs("ab"), 0)), mustArr(strs("c")), 0)
	a, _ := appendKeyValue([]byte(keyOf(t, strs("a"), 0)), mustArr(strs("bc")), 0)
	if string(ab) == string(a) {
		t.Errorf("(ab, c) and (a, bc) encode alike")
	}
	lst := mustArr(func(m memory.Allocator) arrow.Array {
		b := array.NewListBuilder(m, arrow.PrimitiveTypes.Int64)
		defer b.Release()
		b.Append(true)
		return b.NewArray()
	})
	if _, ok := appendKeyValue(nil, lst, 0); ok {
		t.Errorf("a list value must not be compared")
	}
}

func mustArr(build func(memory.Allocator) arrow.Array) arrow.Array {
	return build(memory.DefaultAllocator)
}

// The cache reads a key once, however many builds ask for it at once; it
// keeps values within its budget, least recently used out first, and
// does not keep one larger than a quarter of it (B2).
func TestDeleteCache_Get(t *testing.T) {
	ctx := context.Background()
	c := NewDeleteCache(1000)
	var loads atomic.Int64
	release := make(chan struct{})
	load := func() (any, int64, error) {
		loads.Add(1)
		<-release
		return "v", 100, nil
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := c.get(ctx, "a", load); err != nil || v != "v" {
				t.Errorf("get: %v %v", v, err)
			}
		}()
	}
	for c.Stats().Hits+c.Stats().Reads < 8 { // until every build asked
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if st := c.Stats(); loads.Load() != 1 || st.Reads != 1 || st.Hits != 7 {
		t.Fatalf("8 concurrent gets loaded %d times (stats %+v), want once", loads.Load(), st)
	}
	sized := func(n int64) func() (any, int64, error) { return func() (any, int64, error) { return n, n, nil } }
	for _, k := range []string{"b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		if _, err := c.get(ctx, k, sized(100)); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Bytes > 1000 || st.Entries != 10 {
		t.Fatalf("after 10 values of 100 bytes: %+v, want 10 entries within 1000 bytes", st)
	}
	_, _ = c.get(ctx, "k", sized(100)) // evicts the least recently used: "a"
	if st := c.Stats(); st.Bytes > 1000 || st.Entries != 10 {
		t.Fatalf("over budget: %+v", st)
	}
	reads := c.Stats().Reads
	_, _ = c.get(ctx, "a", sized(100))
	if c.Stats().Reads != reads+1 {
		t.Fatalf("the evicted value was not read again")
	}
	_, _ = c.get(ctx, "big", sized(251))
	_, _ = c.get(ctx, "big", sized(251))
	if st := c.Stats(); st.Uncached != 2 || st.Reads != reads+3 {
		t.Fatalf("a value above a quarter of the budget must be read each time, not kept: %+v", st)
	}
	boom := errors.New("boom")
	if _, err := c.get(ctx, "bad", func() (any, int64, error) { return nil, 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("load error: %v", err)
	}
	if _, err := c.get(ctx, "bad", sized(1)); err != nil {
		t.Fatalf("a failed read is not kept: %v", err)
	}
}

// floe applies an equality delete itself only when each of its fields is
// a top-level column of a type it compares; otherwise (a field nested in
// a struct, one the snapshot's schema lacks) iceberg-go's scan applies
// the data file's deletes (B1).
func TestDeleteFilter_AddEq(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "s", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 4, Name: "k", Type: iceberg.PrimitiveTypes.Int64}}}})
	for _, tc := range []struct {
		fields []int
		ok     bool
	}{
		{[]int{1}, true}, {[]int{2, 1}, true}, {[]int{4}, false}, {[]int{3}, false}, {[]int{9}, false}, {[]int{1, 4}, false},
	} {
		d := &deleteFilter{}
		if got := d.addEq(sc, "f", &eqDeletes{fields: tc.fields}); got != tc.ok {
			t.Errorf("fields %v: addEq %v, want %v", tc.fields, got, tc.ok)
		}
	}
	d := &deleteFilter{}
	d.addEq(sc, "a", &eqDeletes{fields: []int{1}})
	d.addEq(sc, "b", &eqDeletes{fields: []int{2}})
	d.addEq(sc, "c", &eqDeletes{fields: []int{1}})
	if len(d.groups) != 2 || len(d.groups[0].sets) != 2 || d.groups[0].names[0] != "id" || d.groups[1].names[0] != "v" {
		t.Fatalf("files of the same fields share a group: %+v", d.groups)
	}
}

// floe's Parquet source applies equality deletes only where each key
// field feeds a single-value column that holds its values unchanged
// (B1): long or int into LONG, int into INT, string into STRING; a
// timestamp (millis in Pinot), a double, an unbound field or a key field
// feeding a multi-value column sends the file through iceberg-go's scan.
// Other multi-value columns do not (compactBatch cuts their rows too).
func TestDirectKeys(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "n", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 4, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 5, Name: "d", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 6, Name: "u", Type: iceberg.PrimitiveTypes.Int64})
	fields := []spec.FieldSpec{
		{Name: "id", DataType: spec.Long, SingleValue: true}, {Name: "v", DataType: spec.String, SingleValue: true},
		{Name: "n", DataType: spec.Long, SingleValue: true}, {Name: "ts", DataType: spec.Timestamp, SingleValue: true},
		{Name: "d", DataType: spec.Double, SingleValue: true}, {Name: "u", DataType: spec.Int, SingleValue: true},
	}
	b := binding{read: &spec.Schema{Fields: fields}, ids: map[string]int{"id": 1, "v": 2, "n": 3, "ts": 4, "d": 5, "u": 6}}
	for _, tc := range []struct {
		fields []int
		ok     bool
	}{
		{[]int{1}, true}, {[]int{2}, true}, {[]int{3}, true}, {[]int{1, 2}, true},
		{[]int{4}, false}, {[]int{5}, false}, {[]int{6}, false}, {[]int{7}, false}, {[]int{1, 4}, false},
	} {
		flt := &deleteFilter{}
		ok := flt.addEq(sc, "f", &eqDeletes{fields: tc.fields}) // false: the scan applies them anyway
		var cols [][]int
		if ok {
			cols, _, ok = directKeys(b, sc, flt)
		}
		if ok != tc.ok {
			t.Errorf("fields %v: direct %v, want %v", tc.fields, ok, tc.ok)
		}
		if ok && (len(cols) != 1 || len(cols[0]) != len(tc.fields)) {
			t.Errorf("fields %v: columns %v", tc.fields, cols)
		}
	}
	multi := binding{read: &spec.Schema{Fields: []spec.FieldSpec{{Name: "id", DataType: spec.Long, SingleValue: true},
		{Name: "v", DataType: spec.String}}}, ids: map[string]int{"id": 1, "v": 2}}
	if _, _, ok := directKeys(multi, sc, &deleteFilter{}); !ok {
		t.Errorf("positions alone: a multi-value column must not send the file through the scan")
	}
	keyed := &deleteFilter{}
	keyed.addEq(sc, "f", &eqDeletes{fields: []int{1}})
	if _, _, ok := directKeys(multi, sc, keyed); !ok {
		t.Errorf("a key on a single-value column beside a multi-value one must be read directly")
	}
	keyed = &deleteFilter{}
	keyed.addEq(sc, "f", &eqDeletes{fields: []int{2}})
	if _, _, ok := directKeys(multi, sc, keyed); ok {
		t.Errorf("a key field feeding a multi-value column must send the file through the scan")
	}
}

// compactBatch cuts deleted rows out of single-value and multi-value
// columns alike: a multi-value column keeps the value ranges of its kept
// rows, in order, with offsets that bound them, nulls and empty rows
// included, wherever its values start.
func TestCompactBatch_MultiValue(t *testing.T) {
	for _, base := range []int32{0, 3} {
		pad := make([]string, base)
		vals := append(pad, "a", "b", "c", "d", "e", "f")
		// rows: [a] [] [b c] null [d] [e f]
		off := []int32{0, 1, 1, 3, 3, 4, 6}
		for i := range off {
			off[i] += base
		}
		b := &segments.Batch{Rows: 6, Columns: []segments.Vector{
			{Longs: []int64{10, 11, 12, 13, 14, 15}},
			{Offsets: off, Bytes: bytesOf(vals), Nulls: []bool{false, false, false, true, false, false}},
		}}
		keep := []bool{false, true, true, true, false, true}
		compactBatch(b, keep, 4)
		mv := b.Columns[1]
		got := []string{}
		for r := range b.Rows {
			var row []string
			for _, v := range mv.Bytes[mv.Offsets[r]:mv.Offsets[r+1]] {
				row = append(row, string(v))
			}
			got = append(got, fmt.Sprintf("%d:%v:%v", b.Columns[0].Longs[r], mv.Nulls[r], row))
		}
		want := []string{"11:false:[]", "12:false:[b c]", "13:true:[]", "15:false:[e f]"}
		if b.Rows != 4 || !slices.Equal(got, want) || len(mv.Offsets) != 5 || int(mv.Offsets[4]) != len(mv.Bytes) {
			t.Fatalf("base %d: rows %d, got %v (offsets %v, %d values), want %v", base, b.Rows, got, mv.Offsets, len(mv.Bytes), want)
		}
	}
}

func bytesOf(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}
