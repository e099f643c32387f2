package watcher

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table/dv"
)

// DefaultDeleteCacheBytes bounds the decoded delete files a replica keeps
// (B2): least recently used first out.
const DefaultDeleteCacheBytes = 64 << 20

// Field ids of a position delete file's columns (Iceberg spec, reserved).
const (
	posDeleteFilePathID = 2147483546
	posDeletePosID      = 2147483545
)

// errUnsupportedDelete: floe does not decode this delete file itself (a
// key of a type it does not compare, a column it cannot find); the data
// file's deletes are then applied by iceberg-go's scan, as before (B1).
var errUnsupportedDelete = errors.New("delete file not decoded by floe")

// DeleteCache keeps the equality and position delete files a replica's
// builds decoded, by path (delete files are immutable, so a path always
// names the same content), within a byte budget, least recently used
// first out. The builds of every run on the replica share it, local or
// claimed from the work queue, so a delete file is fetched and decoded
// once however many data files it applies to (B2). Builds that need a file
// another build is reading wait for that read. A file whose decoded form
// exceeds a quarter of the budget is read for the build that needs it and
// not kept. The zero value is ready, with DefaultDeleteCacheBytes.
type DeleteCache struct {
	mu      sync.Mutex
	max     int64
	used    int64
	order   *list.List // front: most recently used
	items   map[string]*list.Element
	loading map[string]*deleteLoad
	// seen are the unions asked for once and not built (union).
	seen  map[string]bool
	stats DeleteCacheStats
}

// DeleteCacheStats counts what the cache did (tests and benchmarks).
type DeleteCacheStats struct {
	// Reads are the delete files fetched and decoded; Hits the times a
	// build found one decoded (or waited for another build's read).
	Reads, Hits int64
	// Uncached are the reads too large to keep.
	Uncached int64
	// Unions are the unions of several equality delete files' keys built.
	Unions  int64
	Bytes   int64
	Entries int
}

type deleteLoad struct {
	done chan struct{}
	val  any
	err  error
}

type deleteItem struct {
	key  string
	val  any
	size int64
}

// NewDeleteCache returns a cache within maxBytes (0: DefaultDeleteCacheBytes).
func NewDeleteCache(maxBytes int64) *DeleteCache {
	return &DeleteCache{max: maxBytes}
}

// Stats returns the cache's counters.
func (c *DeleteCache) Stats() DeleteCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Bytes = c.used
	if c.items != nil {
		s.Entries = len(c.items)
	}
	return s
}

// get returns the value under key, reading it with load (which also
// gives its size) when no build has: one read per key at a time.
func (c *DeleteCache) get(ctx context.Context, key string, load func() (any, int64, error)) (any, error) {
	c.mu.Lock()
	c.init()
	if el, ok := c.items[key]; ok {
		c.stats.Hits++
		c.order.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*deleteItem).val, nil
	}
	if l, ok := c.loading[key]; ok {
		c.stats.Hits++
		c.mu.Unlock()
		select {
		case <-l.done:
			return l.val, l.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	l := &deleteLoad{done: make(chan struct{})}
	c.loading[key] = l
	c.stats.Reads++
	c.mu.Unlock()
	val, size, err := load()
	c.mu.Lock()
	delete(c.loading, key)
	if err == nil && !c.put(key, val, size) {
		c.stats.Uncached++
	}
	c.mu.Unlock()
	l.val, l.err = val, err
	close(l.done)
	return val, err
}

func (c *DeleteCache) init() {
	if c.items != nil {
		return
	}
	if c.max == 0 {
		c.max = DefaultDeleteCacheBytes
	}
	c.order, c.items, c.loading = list.New(), map[string]*list.Element{}, map[string]*deleteLoad{}
	c.seen = map[string]bool{}
}

// maxSeenUnions bounds the unions remembered as asked for once.
const maxSeenUnions = 4096

// union returns the union of equality delete keys kept under key.
func (c *DeleteCache) union(key string) (map[string]struct{}, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*deleteItem).val.(map[string]struct{}), true
	}
	return nil, false
}

// wantUnion reports whether the union under key, not kept, was asked for
// before (and remembers that it is now): the caller then builds and keeps
// it (keepUnion). Delete files that apply together to one data file only
// are not worth merging.
func (c *DeleteCache) wantUnion(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if c.seen[key] {
		delete(c.seen, key)
		return true
	}
	if len(c.seen) >= maxSeenUnions {
		clear(c.seen)
	}
	c.seen[key] = true
	return false
}

// keepUnion keeps a union of equality delete keys under key.
func (c *DeleteCache) keepUnion(key string, u map[string]struct{}, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if _, ok := c.items[key]; ok {
		return // another build kept it first
	}
	c.stats.Unions++
	c.put(key, u, size)
}

// put keeps val unless it is too large (false), then evicts down to the
// budget.
func (c *DeleteCache) put(key string, val any, size int64) bool {
	if size > c.max/4 {
		return false
	}
	c.items[key] = c.order.PushFront(&deleteItem{key: key, val: val, size: size})
	c.used += size
	for c.used > c.max {
		el := c.order.Back()
		it := el.Value.(*deleteItem)
		c.order.Remove(el)
		delete(c.items, it.key)
		c.used -= it.size
	}
	return true
}

// eqDeletes are the keys one equality delete file deletes, each encoded
// by appendKeyValue over the file's equality fields in their order.
type eqDeletes struct {
	fields []int
	keys   map[string]struct{}
}

// posDeletes are the positions a position delete file deletes, per data
// file path, sorted.
type posDeletes map[string][]int64

// eqDeletesOf returns the decoded keys of the equality delete file df.
func (c *DeleteCache) eqDeletesOf(ctx context.Context, fsys iceio.IO, df iceberg.DataFile) (*eqDeletes, error) {
	ids := df.EqualityFieldIDs()
	var key strings.Builder
	key.WriteString("eq:" + df.FilePath())
	for _, id := range ids {
		key.WriteString("#" + strconv.Itoa(id))
	}
	v, err := c.get(ctx, key.String(), func() (any, int64, error) { return readEqDeletes(ctx, fsys, df.FilePath(), ids) })
	if err != nil {
		return nil, err
	}
	return v.(*eqDeletes), nil
}

// posDeletesOf returns the decoded positions of the position delete file df.
func (c *DeleteCache) posDeletesOf(ctx context.Context, fsys iceio.IO, df iceberg.DataFile) (posDeletes, error) {
	v, err := c.get(ctx, "pos:"+df.FilePath(), func() (any, int64, error) { return readPosDeletes(ctx, fsys, df.FilePath()) })
	if err != nil {
		return nil, err
	}
	return v.(posDeletes), nil
}

// dvPositionsOf returns the positions, sorted, that the deletion vector df
// deletes from the one data file it names.
func (c *DeleteCache) dvPositionsOf(ctx context.Context, fsys iceio.IO, df iceberg.DataFile) ([]int64, error) {
	key := fmt.Sprintf("dv:%s@%d", df.FilePath(), derefOffset(df.ContentOffset()))
	v, err := c.get(ctx, key, func() (any, int64, error) { return readDV(fsys, df) })
	if err != nil {
		return nil, err
	}
	return v.([]int64), nil
}

func derefOffset(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// readDV reads the deletion vector blob df names in its Puffin file
// (iceberg-go checks its magic, CRC and cardinality against the manifest)
// as sorted positions.
func readDV(fsys iceio.IO, df iceberg.DataFile) (any, int64, error) {
	bm, err := dv.ReadDV(fsys, df)
	if err != nil {
		return nil, 0, fmt.Errorf("read deletion vector %s: %w", df.FilePath(), err)
	}
	out := make([]int64, 0, bm.Cardinality())
	for p := range bm.Positions() {
		if p > math.MaxInt64 {
			return nil, 0, fmt.Errorf("deletion vector %s: position %d out of range", df.FilePath(), p)
		}
		out = append(out, int64(p))
	}
	slices.Sort(out)
	return out, int64(64 + 8*len(out)), nil
}

// readEqDeletes reads the equality fields ids of the delete file at path.
func readEqDeletes(ctx context.Context, fsys iceio.IO, path string, ids []int) (any, int64, error) {
	if len(ids) == 0 {
		return nil, 0, fmt.Errorf("equality delete file %s: %w: no equality field ids", path, errUnsupportedDelete)
	}
	tbl, err := readDeleteColumns(ctx, fsys, path, ids, nil)
	if err != nil {
		return nil, 0, err
	}
	defer tbl.Release()
	d := &eqDeletes{fields: ids, keys: make(map[string]struct{}, tbl.NumRows())}
	size := int64(64 + 8*len(ids))
	var buf []byte
	tr := array.NewTableReader(tbl, 1<<16) // batches whose columns line up
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			buf = buf[:0]
			for i := range ids {
				var ok bool
				if buf, ok = appendKeyValue(buf, rec.Column(i), r); !ok {
					return nil, 0, fmt.Errorf("equality delete file %s: field %d: %w: type %s",
						path, ids[i], errUnsupportedDelete, rec.Column(i).DataType())
				}
			}
			if _, dup := d.keys[string(buf)]; !dup {
				d.keys[string(buf)] = struct{}{}
				size += int64(len(buf)) + 48
			}
		}
	}
	if err := tr.Err(); err != nil {
		return nil, 0, fmt.Errorf("read equality delete file %s: %w", path, err)
	}
	return d, size, nil
}

// readPosDeletes reads the file_path and pos columns of the position
// delete file at path.
func readPosDeletes(ctx context.Context, fsys iceio.IO, path string) (any, int64, error) {
	tbl, err := readDeleteColumns(ctx, fsys, path, []int{posDeleteFilePathID, posDeletePosID}, []string{"file_path", "pos"})
	if err != nil {
		return nil, 0, err
	}
	defer tbl.Release()
	out := posDeletes{}
	size := int64(64)
	tr := array.NewTableReader(tbl, 1<<16) // batches whose columns line up
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		ps, okP := rec.Column(0).(*array.String)
		pos, okN := rec.Column(1).(*array.Int64)
		if !okP || !okN {
			return nil, 0, fmt.Errorf("position delete file %s: %w: columns %s, %s", path, errUnsupportedDelete,
				rec.Column(0).DataType(), rec.Column(1).DataType())
		}
		for r := 0; r < ps.Len(); r++ {
			if ps.IsNull(r) || pos.IsNull(r) {
				return nil, 0, fmt.Errorf("position delete file %s: null file_path or pos", path)
			}
			p := ps.Value(r) // aliases the column's buffer: cloned when kept
			if _, seen := out[p]; !seen {
				p = strings.Clone(p)
				size += int64(len(p)) + 64
			}
			out[p] = append(out[p], pos.Value(r))
			size += 8
		}
	}
	if err := tr.Err(); err != nil {
		return nil, 0, fmt.Errorf("read position delete file %s: %w", path, err)
	}
	for p, list := range out {
		slices.Sort(list)
		out[p] = slices.Compact(list)
	}
	return out, size, nil
}

// readDeleteColumns reads the top-level columns of field ids (or, in a
// file written without field ids, of names) of the Parquet file at path.
func readDeleteColumns(ctx context.Context, fsys iceio.IO, path string, ids []int, names []string) (arrow.Table, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open delete file %s: %w", path, err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("read delete file %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("read delete file %s: %w", path, err)
	}
	cols, err := deleteColumns(fr, ids, names)
	if err != nil {
		return nil, fmt.Errorf("delete file %s: %w", path, err)
	}
	groups := make([]int, pf.NumRowGroups())
	for i := range groups {
		groups[i] = i
	}
	tbl, err := fr.ReadRowGroups(ctx, cols, groups)
	if err != nil {
		return nil, fmt.Errorf("read delete file %s: %w", path, err)
	}
	return tbl, nil
}

// deleteColumns finds the leaf column of each field id among the file's
// top-level columns, by its field id, else by the name given.
func deleteColumns(fr *pqarrow.FileReader, ids []int, names []string) ([]int, error) {
	byID, byName := map[int]int{}, map[string]int{}
	for _, sf := range fr.Manifest.Fields {
		if !sf.IsLeaf() {
			continue
		}
		byName[sf.Field.Name] = sf.ColIndex
		if v, ok := sf.Field.Metadata.GetValue("PARQUET:field_id"); ok {
			if id, err := strconv.Atoi(v); err == nil {
				byID[id] = sf.ColIndex
			}
		}
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		col, ok := byID[id]
		if !ok && i < len(names) {
			col, ok = byName[names[i]]
		}
		if !ok {
			return nil, fmt.Errorf("%w: no top-level column has field id %d", errUnsupportedDelete, id)
		}
		out[i] = col
	}
	return out, nil
}
