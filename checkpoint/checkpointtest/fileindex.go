package checkpointtest

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/floehq/floe/checkpoint"
)

// testFileIndex: C4, C9 and C14 over random full and delta commits. After
// each, the stored file map is the test's model of it and the store's
// index answers as the whole map does (an oracle computed here): counts,
// lookups, small units and unreferenced segments. Every store indexes its
// file maps (checkpoint.FileIndex).
func testFileIndex(t *testing.T, s checkpoint.Store) {
	fi, indexed := s.(checkpoint.FileIndex)
	if !indexed {
		t.Fatalf("%T does not implement checkpoint.FileIndex (C14)", s)
	}
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	l, err := s.AcquireLease(ctx, "orders", "replica-a", longTTL)
	must(t, "AcquireLease", err)
	if _, _, _, err := fi.IndexedCheckpoint(ctx, "orders"); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("IndexedCheckpoint of a table without a checkpoint: %v, want ErrNotFound", err)
	}
	rng := rand.New(rand.NewPCG(21, 14))
	files := map[string]checkpoint.FileState{}
	seen := map[string]bool{} // every segment name a commit listed
	for step := range 40 {
		hdr := fullCheckpoint("orders", int64(step+1), nil)
		if step%10 == 0 { // a full commit now and then replaces the map
			files = randomFiles(rng, 30+rng.IntN(30), step)
			hdr.Files = maps.Clone(files)
			must(t, fmt.Sprintf("commit %d", step), s.CommitCheckpoint(ctx, l, hdr))
			noteSegments(seen, files)
		} else {
			d := randomDelta(rng, files, step)
			d.Header = hdr
			must(t, fmt.Sprintf("delta %d", step), s.CommitCheckpointDelta(ctx, l, d))
			for _, p := range d.Delete {
				delete(files, p)
			}
			maps.Copy(files, d.Set)
			noteSegments(seen, d.Set)
		}
		whole, err := s.GetCheckpoint(ctx, "orders")
		must(t, "GetCheckpoint", err)
		sameJSON(t, fmt.Sprintf("step %d: file map", step), whole.Files, files)
		checkIndex(t, step, fi, whole, seen, rng)
	}
}

// randomFiles returns n entries: single files and members of groups, in
// three partitions, some without a size, segments shared by a group.
func randomFiles(rng *rand.Rand, n, step int) map[string]checkpoint.FileState {
	out := map[string]checkpoint.FileState{}
	for range n {
		path, fs := randomFile(rng, step)
		out[path] = fs
	}
	return out
}

func randomFile(rng *rand.Rand, step int) (string, checkpoint.FileState) {
	i := rng.IntN(1 << 30)
	fs := checkpoint.FileState{Rows: int64(rng.IntN(1000)), SizeBytes: int64(rng.IntN(5)) * 1000,
		Partition: []string{"", "p=1", "p=2"}[rng.IntN(3)], DataSeq: int64(rng.IntN(3))}
	if rng.IntN(3) == 0 {
		fs.DeleteFingerprint = "fp"
	}
	if g := rng.IntN(6); g < 3 {
		fs.Group = fmt.Sprintf("orders_g%d", g)
		fs.Segments = []string{fs.Group + "_0", fs.Group + "_1"}
	} else {
		fs.Segments = []string{fmt.Sprintf("orders_s%d_%d_0", step, i)}
	}
	return fmt.Sprintf("s3://b/t/data/%d-%d.parquet", step, i), fs
}

// randomDelta removes, replaces and adds a few entries of files.
func randomDelta(rng *rand.Rand, files map[string]checkpoint.FileState, step int) checkpoint.CheckpointDelta {
	d := checkpoint.CheckpointDelta{Set: map[string]checkpoint.FileState{}}
	paths := slices.Sorted(maps.Keys(files))
	for _, p := range paths {
		switch rng.IntN(8) {
		case 0:
			d.Delete = append(d.Delete, p)
		case 1:
			_, fs := randomFile(rng, step)
			d.Set[p] = fs
		}
	}
	if step%7 == 3 { // at least half of the map leaves: Bolt rewrites the bucket
		d.Delete = append(d.Delete, paths[:len(paths)*2/3]...)
	}
	for range rng.IntN(6) {
		p, fs := randomFile(rng, step)
		d.Set[p] = fs
	}
	d.Delete = append(d.Delete, "never-there")
	return d
}

// checkIndex compares every read of fi with whole, the checkpoint read
// whole.
func checkIndex(t *testing.T, step int, fi checkpoint.FileIndex, whole checkpoint.Checkpoint, seen map[string]bool, rng *rand.Rand) {
	t.Helper()
	ctx := ctxT(t)
	files := whole.Files
	cp, counts, ok, err := fi.IndexedCheckpoint(ctx, "orders")
	must(t, "IndexedCheckpoint", err)
	if !ok {
		t.Fatalf("step %d: index not in step with the checkpoint", step)
	}
	whole.Files = nil
	sameJSON(t, fmt.Sprintf("step %d: indexed checkpoint", step), cp, whole)
	if want := checkpoint.CountFiles(files); counts != want {
		t.Fatalf("step %d: counts %+v, want %+v", step, counts, want)
	}
	var some []string
	for p := range files {
		if rng.IntN(3) == 0 {
			some = append(some, p)
		}
	}
	got, err := fi.LookupFiles(ctx, "orders", append(some, "s3://b/t/data/none.parquet"))
	must(t, "LookupFiles", err)
	want := map[string]checkpoint.FileState{}
	for _, p := range some {
		want[p] = files[p]
	}
	sameJSON(t, fmt.Sprintf("step %d: looked-up files", step), got, want)
	for _, below := range []int64{1, 2500, 6000, 1 << 40} {
		units, err := fi.SmallUnits(ctx, "orders", []string{"", "p=2"}, below)
		must(t, "SmallUnits", err)
		sameJSON(t, fmt.Sprintf("step %d: small units below %d", step, below), units, oracleSmallUnits(files, below, "", "p=2"))
	}
	checkUnreferenced(t, step, fi, files, seen)
}

// oracleSmallUnits is SmallUnits worked out from the whole map.
func oracleSmallUnits(files map[string]checkpoint.FileState, below int64, parts ...string) []checkpoint.StoredUnit {
	type key struct{ part, group, path string }
	units := map[key]*checkpoint.StoredUnit{}
	unsized := map[key]bool{}
	for p, fs := range files {
		if !slices.Contains(parts, fs.Partition) {
			continue
		}
		k := key{part: fs.Partition, group: fs.Group}
		if fs.Group == "" {
			k.path = p
		}
		u := units[k]
		if u == nil {
			u = &checkpoint.StoredUnit{Partition: fs.Partition, Group: fs.Group}
			units[k] = u
		}
		u.Paths = append(u.Paths, p)
		u.Bytes += fs.SizeBytes
		unsized[k] = unsized[k] || fs.SizeBytes <= 0
	}
	var out []checkpoint.StoredUnit
	for k, u := range units {
		if !unsized[k] && u.Bytes < below {
			slices.Sort(u.Paths)
			out = append(out, *u)
		}
	}
	slices.SortFunc(out, func(a, b checkpoint.StoredUnit) int {
		if c := strings.Compare(a.Partition, b.Partition); c != 0 {
			return c
		}
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Paths[0], b.Paths[0])
	})
	return out
}

func noteSegments(seen map[string]bool, files map[string]checkpoint.FileState) {
	for _, fs := range files {
		for _, s := range fs.Segments {
			seen[s] = true
		}
	}
}

// checkUnreferenced asks for a few names and for many (a store may answer
// each way differently): names never listed, names the map lists and
// names it listed before a commit took their last entry out.
func checkUnreferenced(t *testing.T, step int, fi checkpoint.FileIndex, files map[string]checkpoint.FileState, seen map[string]bool) {
	t.Helper()
	refs := map[string]bool{}
	noteSegments(refs, files)
	for _, n := range []int{5, 200} {
		var names, want []string
		for i := range n {
			names = append(names, fmt.Sprintf("orders_orphan_%d", i))
			want = append(want, fmt.Sprintf("orders_orphan_%d", i))
		}
		for s := range refs {
			if len(names) >= 2*n {
				break
			}
			names = append(names, s)
		}
		for _, s := range slices.Sorted(maps.Keys(seen)) {
			if len(names) >= 3*n {
				break
			}
			if !refs[s] {
				names = append(names, s)
				want = append(want, s)
			}
		}
		got, err := fi.UnreferencedSegments(ctxT(t), "orders", names)
		must(t, "UnreferencedSegments", err)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: unreferenced segments of %d names = %v, want %v", step, len(names), got, want)
		}
	}
}
