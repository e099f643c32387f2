package plan_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// interleavedLake writes 5 files whose ids interleave (file i holds the
// ids ≡ i mod 5 in [0,100)), so every file's bounds hold every key.
func interleavedLake(t *testing.T, cfg lakeConfig) *lake {
	l := newLake(t, cfg)
	for i := range int64(5) {
		var ids []int64
		for id := i; id < 100; id += 5 {
			ids = append(ids, id)
		}
		l.appendIDs(ids)
	}
	l.next = 100
	return l
}

// P12: where every file's bounds hold a deleted key, the key index rules
// out the files that do not hold it: an equality delete rebuilds only the
// files holding its keys (both ways, P1), the others keep their
// fingerprint; without the index every file is rebuilt. Rows stay exact.
func TestPlanner_Plan_KeyIndexRulesOutFilesWithinBounds(t *testing.T) {
	for _, cfg := range []lakeConfig{{version: 2, keyed: true}, {version: 2}, {version: 2, partitioned: true, keyed: true}} {
		t.Run(cfg.String(), func(t *testing.T) {
			l := interleavedLake(t, cfg)
			p, bare := plan.New(plan.Options{KeyIndexDir: t.TempDir()}), plan.New(plan.Options{NoKeyIndex: true})
			cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}), nil)
			owner := ownersOf(t, l, cp)

			l.eqDelete([]int64{37, 38})
			got := plans(t, p, l.load(), cp)
			want := sortedSet([]string{owner[37], owner[38]})
			if !slices.Equal(builtPaths(got), want) {
				t.Fatalf("P12: deleting ids 37 and 38 rebuilt %v, want the files holding them %v (key index %+v)",
					builtPaths(got), want, got.KeyIndex)
			}
			if got.KeyIndex.Files == 0 || got.KeyIndex.RuledOut == 0 || got.KeyIndex.Unavailable != 0 {
				t.Fatalf("P12: key index counters %+v, want files consulted and deletes ruled out", got.KeyIndex)
			}
			if without := plans(t, bare, l.load(), cp); len(builtPaths(without)) <= len(want) {
				t.Fatalf("P12: without the key index the bounds alone rebuilt %v; the test's files do not overlap",
					builtPaths(without))
			}
			cp = commit(cp, l.load(), got, nil)
			checkLive(t, l.load(), cp, got)
			checkRows(t, l.load())
		})
	}
}

// P12: a key index is read back from the key index directory by a fresh
// planner (nothing rebuilt); a damaged index file is rebuilt from the data
// file, with the same plan.
func TestPlanner_Plan_KeyIndexDirectory(t *testing.T) {
	l := interleavedLake(t, lakeConfig{version: 2, keyed: true})
	dir := t.TempDir()
	cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, plan.New(plan.Options{}), l.load(), checkpoint.Checkpoint{}), nil)
	l.eqDelete([]int64{41})
	first := plans(t, plan.New(plan.Options{KeyIndexDir: dir}), l.load(), cp)
	if first.KeyIndex.Built == 0 {
		t.Fatalf("P12: the first plan built no key index: %+v", first.KeyIndex)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.fki"))
	if err != nil || len(files) != first.KeyIndex.Built {
		t.Fatalf("P12: %d key index files (%v) for %d indexes built", len(files), err, first.KeyIndex.Built)
	}
	again := plans(t, plan.New(plan.Options{KeyIndexDir: dir}), l.load(), cp)
	if again.KeyIndex.Built != 0 || !slices.Equal(builtPaths(again), builtPaths(first)) {
		t.Fatalf("P12: a fresh planner on the same directory built %d indexes and rebuilt %v, want 0 and %v",
			again.KeyIndex.Built, builtPaths(again), builtPaths(first))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	damaged := plans(t, plan.New(plan.Options{KeyIndexDir: dir}), l.load(), cp)
	if damaged.KeyIndex.Built != 1 || !slices.Equal(builtPaths(damaged), builtPaths(first)) {
		t.Fatalf("P12: with one index file damaged, %d indexes were built and %v rebuilt, want 1 and %v",
			damaged.KeyIndex.Built, builtPaths(damaged), builtPaths(first))
	}
}

// P12: a sweep removes killed writers' temporary files and index files
// written before the cut-off, and nothing else.
func TestSweepKeyIndex(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := map[string]time.Time{"old.fki": now.Add(-8 * 24 * time.Hour), "new.fki": now,
		"new.fki.tmp-123": now, "other.txt": now.Add(-30 * 24 * time.Hour)}
	for name, at := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	n, err := plan.SweepKeyIndex(dir, now.Add(-7*24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("swept %d files (%v), want 2", n, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	slices.Sort(left)
	if want := []string{filepath.Join(dir, "new.fki"), filepath.Join(dir, "other.txt")}; !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	if n, err := plan.SweepKeyIndex(filepath.Join(dir, "missing"), now); n != 0 || err != nil {
		t.Fatalf("a missing directory: %d %v", n, err)
	}
}
