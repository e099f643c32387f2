package segments

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/zeebo/xxh3"
	"golang.org/x/sync/errgroup"

	"github.com/floehq/floe/pinot/spec"
)

// A row-mode variable-width column whose final statistics ask for a
// dictionary after all is rebuilt from its spill. The distinct values are
// split by hash into shards built and sorted in parallel (equal values
// share a shard), then merged into one sorted dictionary; every id is final
// when the rebuild ends.

// rebuildMinPerShard: below this many distinct values per shard the
// rebuild stays on one goroutine.
const rebuildMinPerShard = 1 << 15

// maxRebuildShards bounds the rebuild's parallelism.
const maxRebuildShards = 4

// rebuildDictionary turns a row-mode variable-width column back into a
// dictionary column (when the final statistics ask for a dictionary).
func (c *column) rebuildDictionary() error {
	rs := c.rows2
	defer rs.remove()
	card := rs.cardinality()
	// At least two shards for a large dictionary even on one CPU, so the
	// merge path is the one every large column takes.
	shards := min(max(2, runtime.GOMAXPROCS(0)), maxRebuildShards, max(1, card/rebuildMinPerShard))
	if c.stored == spec.BigDecimal {
		shards = 1 // its order needs decoded keys; sort() handles it
	}
	if err := rs.sp.w.Flush(); err != nil {
		return fmt.Errorf("flush spill: %w", err)
	}
	c.ids = make([]int32, c.entries)
	dicts := make([]*bytesDict, shards)
	var g errgroup.Group
	for s := range dicts {
		g.Go(func() (err error) {
			dicts[s], err = rs.shardDict(s, shards, c.ids, card/shards+card/(8*shards)+16)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.rows2 = nil
	if shards == 1 {
		c.bytes = dicts[0] // ids are provisional; finish sorts
		return nil
	}
	c.bytes = mergeShardDicts(dicts, c.ids, c.stored)
	return nil
}

// shardDict reads the spill and adds the values of shard (hash mod shards)
// to a new dictionary, writing ids[row] = local id*shards + shard.
func (r *rowSpill) shardDict(shard, shards int, ids []int32, sizeHint int) (*bytesDict, error) {
	sr, err := openSpillReader(r.sp.f.Name())
	if err != nil {
		return nil, err
	}
	defer sr.close()
	d := newBytesDictSize(sizeHint)
	var bt lookupBatch
	for i := range ids {
		b, err := sr.next()
		if err != nil {
			return nil, err
		}
		h := xxh3.Hash(b)
		if shards > 1 && shardOf(h, shards) != shard {
			continue
		}
		if bt.add(i, h, b) {
			bt.flush(d, ids, shard, shards)
		}
	}
	bt.flush(d, ids, shard, shards)
	return d, nil
}

// lookupBatch holds values whose dictionary lookups run together (bytesDict.warm).
type lookupBatch struct {
	n    int
	rows [32]int
	hs   [32]uint64
	vals [32][]byte
}

// add copies in a value; it reports whether the batch is full.
func (bt *lookupBatch) add(row int, h uint64, b []byte) bool {
	bt.rows[bt.n], bt.hs[bt.n] = row, h
	bt.vals[bt.n] = append(bt.vals[bt.n][:0], b...)
	bt.n++
	return bt.n == len(bt.rows)
}

// flush looks the batch up, writing ids[row] = local id*shards + shard.
func (bt *lookupBatch) flush(d *bytesDict, ids []int32, shard, shards int) {
	d.warm(bt.hs[:bt.n])
	for k := range bt.n {
		ids[bt.rows[k]] = d.idHash(bt.vals[k], bt.hs[k])*int32(shards) + int32(shard)
	}
	bt.n = 0
}

// mergeShardDicts sorts each shard's values (in parallel), merges them into
// one sorted dictionary and rewrites ids to final ids.
func mergeShardDicts(dicts []*bytesDict, ids []int32, stored spec.DataType) *bytesDict {
	out := &bytesDict{minLen: dicts[0].minLen, sorted: true}
	total := 0
	for _, d := range dicts {
		out.high = out.high || d.high
		out.maxLen, out.minLen = max(out.maxLen, d.maxLen), min(out.minLen, d.minLen)
		out.ar.blocks = append(out.ar.blocks, d.ar.blocks...)
		out.ar.size += d.ar.size
		total += len(d.vals)
	}
	utf16 := out.utf16Order(stored)
	cmp := strings.Compare
	if utf16 {
		cmp = compareUTF16
	}
	remaps := make([][]int32, len(dicts))
	var g errgroup.Group
	for s, d := range dicts {
		g.Go(func() error { remaps[s] = d.sortOrdered(utf16); return nil })
	}
	_ = g.Wait()
	// final[s][sorted local position] = global id; values never repeat
	// across shards.
	final := make([][]int32, len(dicts))
	for s, d := range dicts {
		final[s] = make([]int32, len(d.vals))
	}
	out.vals = make([]string, 0, total)
	pos := make([]int, len(dicts))
	for len(out.vals) < total {
		best := -1
		for s, d := range dicts {
			if pos[s] < len(d.vals) && (best < 0 || cmp(d.vals[pos[s]], dicts[best].vals[pos[best]]) < 0) {
				best = s
			}
		}
		final[best][pos[best]] = int32(len(out.vals))
		out.vals = append(out.vals, dicts[best].vals[pos[best]])
		pos[best]++
	}
	for s := range dicts {
		for local, sortedPos := range remaps[s] {
			remaps[s][local] = final[s][sortedPos]
		}
	}
	n := int32(len(dicts))
	for i, id := range ids {
		ids[i] = remaps[id%n][id/n]
	}
	return out
}

// spillReader reads a row-mode spill file (uvarint length, bytes) from the
// start; next's result is valid until the following call.
type spillReader struct {
	f   *os.File
	br  *bufio.Reader
	buf []byte
}

func openSpillReader(name string) (*spillReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open spill: %w", err)
	}
	return &spillReader{f: f, br: bufio.NewReaderSize(f, 1<<20)}, nil
}

func (r *spillReader) next() ([]byte, error) {
	l, err := binary.ReadUvarint(r.br)
	if err != nil {
		return nil, fmt.Errorf("read spill: %w", err)
	}
	if cap(r.buf) < int(l) {
		r.buf = make([]byte, l)
	}
	r.buf = r.buf[:l]
	if _, err := io.ReadFull(r.br, r.buf); err != nil {
		return nil, fmt.Errorf("read spill: %w", err)
	}
	return r.buf, nil
}

func (r *spillReader) close() { r.f.Close() }
