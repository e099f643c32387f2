package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Keys of a table's file index (format: never change; see doc.go).
var (
	keyIndexStamp = []byte("stamp")
	bktIndexSegs  = []byte("segs")
	bktIndexUnits = []byte("units")
	bktIndexSmall = []byte("small")
)

var _ FileIndex = (*Bolt)(nil)

// indexView runs fn in a read transaction with the table's index bucket
// and its sub-bucket name, if the index is in step (inStep) and has it.
func (b *Bolt) indexView(op, table string, name []byte, fn func(ib, sub *bolt.Bucket) error) error {
	return b.view(op+" of table "+quote(table), func(tx *bolt.Tx) error {
		ib, err := inStep(tx, table)
		if err != nil {
			return err
		}
		if sub := ib.Bucket(name); sub != nil {
			return fn(ib, sub)
		}
		return nil
	})
}

// inStep returns the table's index bucket, or ErrIndexStale when the
// index is not the one the checkpoint's own commit wrote (C14).
func inStep(tx *bolt.Tx, table string) (*bolt.Bucket, error) {
	var h checkpointHeader
	if err := getJSON(tx.Bucket(bktCheckpoints), table, "checkpoint of table "+quote(table), &h); err != nil {
		return nil, err
	}
	s, ok, err := readStamp(tx, table)
	if err != nil {
		return nil, err
	}
	if !ok || !s.matches(h) {
		return nil, fmt.Errorf("file index of table %s: %w", quote(table), ErrIndexStale)
	}
	return tx.Bucket(bktFileIndex).Bucket([]byte(table)), nil
}

// indexStamp says which commit a table's file index is in step with, and
// counts the file map (C14).
type indexStamp struct {
	versioned
	LeaseToken  int64      `json:"leaseToken"`
	CommittedAt time.Time  `json:"committedAt"`
	Counts      FileCounts `json:"counts"`
}

func newIndexStamp(h checkpointHeader, counts FileCounts) indexStamp {
	return indexStamp{versioned: versioned{V: FormatCurrent}, LeaseToken: h.LeaseToken, CommittedAt: h.CommittedAt, Counts: counts}
}

// matches reports whether the index was written by the commit that wrote h.
func (s indexStamp) matches(h checkpointHeader) bool {
	return s.LeaseToken == h.LeaseToken && s.CommittedAt.Equal(h.CommittedAt) && s.Counts.Files == h.FileCount
}

// readStamp returns the stamp of the table's index (ok false: none).
func readStamp(tx *bolt.Tx, table string) (indexStamp, bool, error) {
	ib := tx.Bucket(bktFileIndex).Bucket([]byte(table))
	if ib == nil || ib.Get(keyIndexStamp) == nil {
		return indexStamp{}, false, nil
	}
	var s indexStamp
	if err := decode("file index stamp of table "+quote(table), ib.Get(keyIndexStamp), &s); err != nil {
		return indexStamp{}, false, err
	}
	return s, true, nil
}

// writeIndex replaces the table's index with one of files, for the commit
// that writes h.
func writeIndex(tx *bolt.Tx, table string, files map[string]FileState, h checkpointHeader) error {
	x := newIndexDelta()
	for p, fs := range files {
		x.file(p, fs, 1)
	}
	return freshIndex(tx, table, x, h)
}

// rebuildIndex replaces the table's index with one of its stored file
// map, for the commit that writes h: a commit whose base index was not in
// step with its base checkpoint (written by a release that kept none).
func rebuildIndex(tx *bolt.Tx, table string, h checkpointHeader) error {
	x := newIndexDelta()
	if bkt := tx.Bucket(bktFiles).Bucket([]byte(table)); bkt != nil {
		if err := forEachFile(bkt, table, func(path string, fs FileState) error {
			x.file(path, fs, 1)
			return nil
		}); err != nil {
			return err
		}
	}
	return freshIndex(tx, table, x, h)
}

func freshIndex(tx *bolt.Tx, table string, x *indexDelta, h checkpointHeader) error {
	parent, key := tx.Bucket(bktFileIndex), []byte(table)
	if err := deleteSub(parent, key); err != nil {
		return err
	}
	ib, err := parent.CreateBucket(key)
	if err != nil {
		return err
	}
	if err := applyIndex(ib, x); err != nil {
		return err
	}
	return putJSON(ib, string(keyIndexStamp), "file index stamp", newIndexStamp(h, x.counts))
}

// updateIndex applies x, the change of a delta commit from the checkpoint
// old to h, to the table's index, or rebuilds the index when it was not in
// step with old.
func updateIndex(tx *bolt.Tx, table string, x *indexDelta, old, h checkpointHeader) error {
	s, ok, err := readStamp(tx, table)
	if err != nil {
		return err
	}
	if !ok || !s.matches(old) {
		return rebuildIndex(tx, table, h)
	}
	ib := tx.Bucket(bktFileIndex).Bucket([]byte(table))
	if err := applyIndex(ib, x); err != nil {
		return err
	}
	counts := s.Counts
	counts.plus(x.counts)
	return putJSON(ib, string(keyIndexStamp), "file index stamp", newIndexStamp(h, counts))
}

// applyIndex writes x into the index bucket ib: segment reference counts,
// unit members, and the size-ordered keys of the units whose members all
// record a size. Keys go in sorted order in each bucket: a bbolt node
// takes appends cheaply, but each insert in its middle moves the rest
// (a fresh index of 100,000 files in map order took seconds).
func applyIndex(ib *bolt.Bucket, x *indexDelta) error {
	segs, err := ib.CreateBucketIfNotExists(bktIndexSegs)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(x.segs)) {
		if err := addRef(segs, []byte(name), x.segs[name]); err != nil {
			return err
		}
	}
	units, err := ib.CreateBucketIfNotExists(bktIndexUnits)
	if err != nil {
		return err
	}
	small, err := ib.CreateBucketIfNotExists(bktIndexSmall)
	if err != nil {
		return err
	}
	type keyed struct {
		key []byte
		ref unitRef
	}
	refs := make([]keyed, 0, len(x.units))
	for ref := range x.units {
		refs = append(refs, keyed{unitKey(ref), ref})
	}
	slices.SortFunc(refs, func(a, b keyed) int { return bytes.Compare(a.key, b.key) })
	var out, in [][]byte // size-ordered keys to delete and to put
	for _, k := range refs {
		del, put, err := applyUnit(units, k.key, k.ref, x.units[k.ref])
		if err != nil {
			return err
		}
		out, in = appendKey(out, del), appendKey(in, put)
	}
	return moveSmallKeys(small, out, in)
}

func appendKey(ks [][]byte, k []byte) [][]byte {
	if k == nil {
		return ks
	}
	return append(ks, k)
}

// moveSmallKeys deletes the size-ordered keys out and puts in, each in
// sorted order.
func moveSmallKeys(small *bolt.Bucket, out, in [][]byte) error {
	slices.SortFunc(out, bytes.Compare)
	for _, k := range out {
		if err := small.Delete(k); err != nil {
			return err
		}
	}
	slices.SortFunc(in, bytes.Compare)
	for _, k := range in {
		if err := small.Put(k, nil); err != nil {
			return err
		}
	}
	return nil
}

func addRef(segs *bolt.Bucket, name []byte, n int) error {
	if n == 0 {
		return nil
	}
	cur, _ := binary.Uvarint(segs.Get(name))
	next := int64(cur) + int64(n)
	if next <= 0 {
		return segs.Delete(name)
	}
	return segs.Put(name, binary.AppendUvarint(nil, uint64(next)))
}

// applyUnit applies e to the unit stored under key and returns the
// unit's size-ordered key before (to delete) and after (to put), nil
// where there is none.
func applyUnit(units *bolt.Bucket, key []byte, ref unitRef, e *unitEdit) (del, put []byte, err error) {
	var old *unitState
	if raw := units.Get(key); raw != nil {
		old = &unitState{}
		if err := decode("file index unit", raw, old); err != nil {
			return nil, nil, err
		}
	}
	c := changeUnit(ref, old, e)
	if c.unit == nil {
		return c.smallOut, nil, units.Delete(key)
	}
	if err := putJSON(units, string(key), "file index unit", c.unit); err != nil {
		return nil, nil, err
	}
	return c.smallOut, c.smallIn, nil
}

// IndexedCheckpoint returns the table's checkpoint without its files and
// the counts of its index.
func (b *Bolt) IndexedCheckpoint(_ context.Context, table string) (Checkpoint, FileCounts, bool, error) {
	var (
		cp Checkpoint
		s  indexStamp
		ok bool
	)
	err := b.view("get indexed checkpoint of table "+quote(table), func(tx *bolt.Tx) error {
		var h checkpointHeader
		if err := getJSON(tx.Bucket(bktCheckpoints), table, "checkpoint of table "+quote(table), &h); err != nil {
			return err
		}
		cp = h.checkpoint(nil)
		cp.Files = nil
		var err error
		s, ok, err = readStamp(tx, table)
		ok = ok && s.matches(h)
		return err
	})
	if err != nil || !ok {
		return cp, FileCounts{}, false, err
	}
	return cp, s.Counts, true, nil
}

// LookupFiles returns the entries of paths the table's file map holds.
func (b *Bolt) LookupFiles(_ context.Context, table string, paths []string) (map[string]FileState, error) {
	out := make(map[string]FileState, len(paths))
	err := b.view("look up files of table "+quote(table), func(tx *bolt.Tx) error {
		bkt := tx.Bucket(bktFiles).Bucket([]byte(table))
		if bkt == nil {
			return nil
		}
		d := newFileDecoder(table)
		for _, p := range paths {
			raw := bkt.Get([]byte(p))
			if raw == nil {
				continue
			}
			fs, err := d.decode(p, raw)
			if err != nil {
				return err
			}
			out[p] = fs
		}
		return nil
	})
	return out, err
}

// SmallUnits returns the small units of the partitions parts: a range of
// the size-ordered keys per partition.
func (b *Bolt) SmallUnits(_ context.Context, table string, parts []string, below int64) ([]StoredUnit, error) {
	var out []StoredUnit
	err := b.indexView("small units", table, bktIndexSmall, func(ib, small *bolt.Bucket) error {
		units, c := ib.Bucket(bktIndexUnits), small.Cursor()
		for _, part := range slices.Compact(slices.Sorted(slices.Values(parts))) {
			for k, _ := c.Seek(partPrefix(part)); k != nil; k, _ = c.Next() {
				size, name, ok := splitSmallKey(part, k)
				if !ok || size >= below {
					break
				}
				u, err := smallUnit(units, part, name)
				if err != nil {
					return err
				}
				out = append(out, u)
			}
		}
		return nil
	})
	sortUnits(out)
	return out, err
}

func smallUnit(units *bolt.Bucket, part string, name []byte) (StoredUnit, error) {
	ref, err := refOfName(part, name)
	if err != nil {
		return StoredUnit{}, err
	}
	raw := units.Get(unitKey(ref))
	if raw == nil {
		return StoredUnit{}, fmt.Errorf("file index: unit %q of partition %q has a size key but no members", name, part)
	}
	return storedUnit(ref, raw)
}

// UnreferencedSegments returns the names no entry of the table's file map
// lists: a lookup each for a few names, else one pass over the segment
// references.
func (b *Bolt) UnreferencedSegments(_ context.Context, table string, names []string) ([]string, error) {
	left := make(map[string]bool, len(names))
	for _, n := range names {
		left[n] = true
	}
	err := b.indexView("unreferenced segments", table, bktIndexSegs, func(_, segs *bolt.Bucket) error {
		if len(names) <= 64 {
			for _, n := range names {
				if segs.Get([]byte(n)) != nil {
					delete(left, n)
				}
			}
			return nil
		}
		return segs.ForEach(func(k, _ []byte) error {
			if left[string(k)] {
				delete(left, string(k))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(left))
	for n := range left {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}
