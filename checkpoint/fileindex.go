package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// FileIndex is implemented by stores that keep an index of each table's
// file map beside it, in step with every commit (C14), so that a run reads
// the entries it touches instead of the whole map: Bolt, Redis and Memory.
// A store without it is read whole with GetCheckpoint. The reads
// see the table's last commit; a caller that holds the table's lease sees
// no commit in between but its own.
type FileIndex interface {
	// IndexedCheckpoint returns the table's checkpoint without its file
	// map (Files nil) and the counts of the map (ErrNotFound when the
	// table has no checkpoint). ok is false when the index is not in step
	// with the checkpoint (a commit by a release that kept none); the
	// next commit rebuilds it, and until then the map is read whole.
	IndexedCheckpoint(ctx context.Context, table string) (cp Checkpoint, counts FileCounts, ok bool, err error)
	// LookupFiles returns the entries of paths that the map holds.
	LookupFiles(ctx context.Context, table string, paths []string) (map[string]FileState, error)
	// SmallUnits returns the units of the partitions parts whose members
	// all record a size and add up to less than below bytes, sorted by
	// partition, then group, then first path. A unit is the entries of one
	// group within one partition (a group never spans partitions: the
	// planner coalesces and remaps within one), or one entry on its own.
	// SmallUnits and UnreferencedSegments fail with ErrIndexStale when
	// the index is not in step.
	SmallUnits(ctx context.Context, table string, parts []string, below int64) ([]StoredUnit, error)
	// UnreferencedSegments returns, sorted, the names of names that no
	// entry of the map lists.
	UnreferencedSegments(ctx context.Context, table string, names []string) ([]string, error)
}

// ErrIndexStale: a table's file index is not in step with its checkpoint
// (FileIndex.IndexedCheckpoint reports it; the index reads refuse).
var ErrIndexStale = errors.New("file index not in step with the checkpoint")

// FileCounts counts what a plan needs to know of a whole file map without
// reading it.
type FileCounts struct {
	Files int `json:"files"`
	// NoDataSeq counts entries without a data sequence number (DataSeq
	// < 1), Unpartitioned those with partition "", WithDeletes those built
	// with delete files applied (a DeleteFingerprint).
	NoDataSeq     int `json:"noDataSeq"`
	Unpartitioned int `json:"unpartitioned"`
	WithDeletes   int `json:"withDeletes"`
}

// add counts fs n times (n -1: takes it out).
func (c *FileCounts) add(fs FileState, n int) {
	c.Files += n
	if fs.DataSeq < 1 {
		c.NoDataSeq += n
	}
	if fs.Partition == "" {
		c.Unpartitioned += n
	}
	if fs.DeleteFingerprint != "" {
		c.WithDeletes += n
	}
}

func (c *FileCounts) plus(o FileCounts) {
	c.Files += o.Files
	c.NoDataSeq += o.NoDataSeq
	c.Unpartitioned += o.Unpartitioned
	c.WithDeletes += o.WithDeletes
}

// CountFiles counts files.
func CountFiles(files map[string]FileState) FileCounts {
	var c FileCounts
	for _, fs := range files {
		c.add(fs, 1)
	}
	return c
}

// StoredUnit is one unit of a file map: the entries of one group (Group
// set), or one entry on its own (Group "", one path), of one partition.
type StoredUnit struct {
	Partition string
	Group     string
	Paths     []string // sorted
	Bytes     int64    // the members' SizeBytes
}

// unitRef names the unit an entry belongs to: its partition and its group,
// or its own path when it has none.
type unitRef struct {
	partition, group, path string
}

func unitOf(path string, fs FileState) unitRef {
	if fs.Group != "" {
		return unitRef{partition: fs.Partition, group: fs.Group}
	}
	return unitRef{partition: fs.Partition, path: path}
}

// indexDelta is what a commit changes in a file map's index: the counts,
// the reference count of each segment name and the members of each unit.
type indexDelta struct {
	counts FileCounts
	segs   map[string]int
	units  map[unitRef]*unitEdit
}

// unitEdit is the members a commit takes out of a unit and puts in.
type unitEdit struct {
	out, in map[string]int64 // path → SizeBytes
}

func newIndexDelta() *indexDelta {
	return &indexDelta{segs: map[string]int{}, units: map[unitRef]*unitEdit{}}
}

// file records that the map's entry for path, fs, comes in (n 1) or goes
// out (n -1).
func (x *indexDelta) file(path string, fs FileState, n int) {
	x.counts.add(fs, n)
	for _, s := range fs.Segments {
		x.segs[s] += n
	}
	ref := unitOf(path, fs)
	e := x.units[ref]
	if e == nil {
		e = &unitEdit{}
		x.units[ref] = e
	}
	if n > 0 {
		if e.in == nil {
			e.in = map[string]int64{}
		}
		e.in[path] = fs.SizeBytes
	} else {
		if e.out == nil {
			e.out = map[string]int64{}
		}
		e.out[path] = fs.SizeBytes
	}
}

// unitState is a unit as an index keeps it.
type unitState struct {
	versioned
	Bytes   int64    `json:"bytes"`
	Unsized int      `json:"unsized"` // members without a recorded size
	Paths   []string `json:"paths"`   // sorted
}

// apply takes e's members out of u and puts its new ones in.
func (u *unitState) apply(e *unitEdit) {
	keep := u.Paths[:0]
	for _, p := range u.Paths {
		if size, ok := e.out[p]; ok {
			u.count(size, -1)
			continue
		}
		keep = append(keep, p)
	}
	u.Paths = keep
	for p, size := range e.in {
		u.Paths = append(u.Paths, p)
		u.count(size, 1)
	}
	slices.Sort(u.Paths)
}

func (u *unitState) count(size int64, n int) {
	if size <= 0 {
		u.Unsized += n
		return
	}
	u.Bytes += int64(n) * size
}

// small reports whether the unit is small under below bytes.
func (u *unitState) small(below int64) bool {
	return len(u.Paths) > 0 && u.Unsized == 0 && u.Bytes < below
}

// MapFiles answers the reads of a FileIndex from a whole file map in
// memory: for the Memory store, and for tests of what reads an index.
type MapFiles map[string]FileState

// SmallUnits is FileIndex.SmallUnits of the map.
func (files MapFiles) SmallUnits(parts []string, below int64) []StoredUnit {
	want := map[string]bool{}
	for _, p := range parts {
		want[p] = true
	}
	x := newIndexDelta()
	for path, fs := range files {
		if want[fs.Partition] {
			x.file(path, fs, 1)
		}
	}
	var out []StoredUnit
	for ref, e := range x.units {
		var u unitState
		u.apply(e)
		if u.small(below) {
			out = append(out, StoredUnit{Partition: ref.partition, Group: ref.group, Paths: u.Paths, Bytes: u.Bytes})
		}
	}
	sortUnits(out)
	return out
}

func sortUnits(us []StoredUnit) {
	slices.SortFunc(us, func(a, b StoredUnit) int {
		if c := strings.Compare(a.Partition, b.Partition); c != 0 {
			return c
		}
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Paths[0], b.Paths[0])
	})
}

// Unreferenced is FileIndex.UnreferencedSegments of the map.
func (files MapFiles) Unreferenced(names []string) []string {
	refs := map[string]bool{}
	for _, fs := range files {
		for _, s := range fs.Segments {
			refs[s] = true
		}
	}
	var out []string
	for _, n := range names {
		if !refs[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Lookup is FileIndex.LookupFiles of the map (entries copied).
func (files MapFiles) Lookup(paths []string) map[string]FileState {
	out := make(map[string]FileState, len(paths))
	for _, p := range paths {
		if fs, ok := files[p]; ok {
			fs.Segments = slices.Clone(fs.Segments)
			fs.KeyBounds = maps.Clone(fs.KeyBounds)
			out[p] = fs
		}
	}
	return out
}

// unitChange is what an edit does to one stored unit: the unit after it
// (nil: no members left, delete it) and its size-ordered keys to delete
// and to put (nil where none; both nil when the key stays).
type unitChange struct {
	unit              *unitState
	smallOut, smallIn []byte
}

// changeUnit applies e to old, the unit ref as stored (nil: none), which
// it may modify.
func changeUnit(ref unitRef, old *unitState, e *unitEdit) unitChange {
	var c unitChange
	u := old
	if u == nil {
		u = &unitState{}
	} else if u.Unsized == 0 {
		c.smallOut = smallKey(ref, u.Bytes)
	}
	u.apply(e)
	if len(u.Paths) == 0 {
		return c
	}
	u.V = FormatCurrent
	c.unit = u
	if u.Unsized == 0 {
		c.smallIn = smallKey(ref, u.Bytes)
	}
	if bytes.Equal(c.smallOut, c.smallIn) {
		c.smallOut, c.smallIn = nil, nil
	}
	return c
}

// Key layout of an index's units, shared by the stores (format: never
// change; see doc.go). A unit key is the partition's prefix, then the
// unit's name; a size-ordered (small) key puts the unit's bytes as 8
// bytes big-endian between the two, so the units of a partition under a
// size are one range of keys in byte order.

// partPrefix is a partition's prefix of unit and size keys: its length,
// then its bytes, so no partition's keys run into another's.
func partPrefix(p string) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(p))), p...)
}

// unitName is the tail of a unit's keys: "g" and its group, or "f" and
// its one file's path.
func unitName(ref unitRef) []byte {
	if ref.group != "" {
		return append([]byte{'g'}, ref.group...)
	}
	return append([]byte{'f'}, ref.path...)
}

func unitKey(ref unitRef) []byte {
	return append(partPrefix(ref.partition), unitName(ref)...)
}

func smallKey(ref unitRef, size int64) []byte {
	return append(sizePrefix(ref.partition, size), unitName(ref)...)
}

// sizePrefix starts the size-ordered keys of partition p's units of size
// bytes; every key of a smaller unit sorts before it.
func sizePrefix(p string, size int64) []byte {
	return binary.BigEndian.AppendUint64(partPrefix(p), uint64(size))
}

// splitSmallKey splits a size-ordered key of partition part into the
// unit's bytes and its name (ok false: not one of part's keys).
func splitSmallKey(part string, k []byte) (size int64, name []byte, ok bool) {
	pp := partPrefix(part)
	if !bytes.HasPrefix(k, pp) || len(k) <= len(pp)+8 {
		return 0, nil, false
	}
	return int64(binary.BigEndian.Uint64(k[len(pp):])), k[len(pp)+8:], true
}

// refOfName is the unit of partition part named name (unitName).
func refOfName(part string, name []byte) (unitRef, error) {
	ref := unitRef{partition: part}
	switch {
	case len(name) > 0 && name[0] == 'g':
		ref.group = string(name[1:])
	case len(name) > 0 && name[0] == 'f':
		ref.path = string(name[1:])
	default:
		return unitRef{}, fmt.Errorf("file index: malformed unit key %q", name)
	}
	return ref, nil
}

// storedUnit decodes the stored unit ref.
func storedUnit(ref unitRef, raw []byte) (StoredUnit, error) {
	var u unitState
	if err := decode("file index unit", raw, &u); err != nil {
		return StoredUnit{}, err
	}
	return StoredUnit{Partition: ref.partition, Group: ref.group, Paths: u.Paths, Bytes: u.Bytes}, nil
}
