package plan_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// writer changes a test table one random operation at a time.
type writer interface {
	// step applies one operation and names it; chain is false when the
	// operation may have cut the snapshot chain (rollback, expiry).
	step(rng *rand.Rand) (op string, chain bool)
	load() *table.Table
}

// propertySeed is FLOE_PLAN_SEED when set (to replay a failure), else a
// new seed per run.
func propertySeed(t *testing.T) uint64 {
	if s := os.Getenv("FLOE_PLAN_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("FLOE_PLAN_SEED=%q: %v", s, err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

// optionsFor picks coalescing settings by seed, so that the variants of
// one test run cover them all: off, or on with small targets so that the
// few-KB test files form units of a few files, with or without merging
// small units across runs (P10).
func optionsFor(seed uint64) plan.Options {
	switch seed % 4 {
	case 0:
		return plan.Options{}
	case 1:
		return plan.Options{CoalesceBelowBytes: 4 << 10, TargetSegmentBytes: 6 << 10}
	case 2:
		return plan.Options{CoalesceBelowBytes: 8 << 10, TargetSegmentBytes: 16 << 10, MergeSmallUnits: 2}
	}
	return plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 12 << 10, CacheBytes: 64 << 10}
}

// runProperty drives random operations on a table and plans at random
// points, each time both ways (P1, via plans). It commits each plan the
// way a run would, now and then with a failed unit (continueOnFileError)
// or as a backfill batch, checks the committed checkpoint against
// iceberg-go's own planning, and checks that reading every live file
// through the plan's tasks gives the table's rows. It returns how many
// files equality deletes would have rebuilt under the rule that ignores
// their keys (Options.EqualityDeletesWholePartition) but the plans did not
// (P2: the runs covered targeted equality-delete rebuilds).
func runProperty(t *testing.T, w writer, steps int, base uint64, variant int) (spared int) {
	seed := base + uint64(variant)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	opts := optionsFor(seed)
	p := plan.New(opts)
	var (
		cp         checkpoint.Checkpoint
		history    []string
		mustFold   bool
		folded     int
		difference int
		replacing  int
		remapped   int
		syncs      int
		lastSynced = -1
	)
	defer func() {
		if t.Failed() {
			t.Logf("replay: FLOE_PLAN_SEED=%d go test -run '%s' (options %+v)\nops: %s", base, t.Name(), opts,
				strings.Join(history, " "))
		}
	}()
	for step := 0; step < steps; step++ {
		op, chain := w.step(rng)
		history = append(history, op)
		mustFold = mustFold && chain
		if rng.IntN(3) == 0 && step < steps-1 {
			continue // let a few operations pile up between runs
		}
		history = append(history, "|")
		tbl := w.load()
		got := plans(t, p, tbl, cp)
		spared += sparedFiles(t, opts, tbl, cp, got)
		syncs++
		if got.Replacing {
			replacing++
		}
		if got.RemapFallback != "" {
			history = append(history, "(not remapped: "+got.RemapFallback+")")
			t.Logf("step %d: not remapped: %s", step, got.RemapFallback)
		}
		if len(got.Remaps) > 0 {
			remapped++
			checkRemaps(t, tbl, cp, got)
		}
		switch {
		case got.Incremental:
			folded++
			difference += got.FoldedByDifference
		case mustFold && !strings.HasPrefix(got.Fallback, "rebuilding "):
			t.Fatalf("step %d: the chain is intact and the checkpoint complete, yet the plan fell back: %s", step, got.Fallback)
		}
		cp, mustFold = commitRandomly(t, rng, tbl, cp, got)
		if syncs%5 == 0 && lastSynced != step {
			checkRows(t, tbl)
			lastSynced = step
		}
	}
	checkRows(t, w.load())
	t.Logf("seed %d (options %+v): %d steps, %d plans, %d folded (%d snapshots by difference), %d replacing, %d remapping, "+
		"%d files spared by equality-delete keys", seed, opts, steps, syncs, folded, difference, replacing, remapped, spared)
	if folded == 0 {
		t.Fatalf("no plan folded in %d plans", syncs)
	}
	return spared
}

// sparedFiles is how many more files the same plan builds when equality
// deletes ignore their keys.
func sparedFiles(t *testing.T, opts plan.Options, tbl *table.Table, cp checkpoint.Checkpoint, got *plan.Plan) int {
	t.Helper()
	opts.EqualityDeletesWholePartition = true
	whole, err := plan.New(opts).Plan(context.Background(), tableName, tbl, cp)
	if err != nil {
		t.Fatalf("plan ignoring equality-delete keys: %v", err)
	}
	return max(0, len(builtPaths(whole))-len(builtPaths(got)))
}

// commitRandomly commits a plan fully (and checks it), or with one failed
// unit, or, for a pure addition, as a first backfill batch. It reports
// whether the next plan must fold.
func commitRandomly(t *testing.T, rng *rand.Rand, tbl *table.Table, cp checkpoint.Checkpoint, p *plan.Plan) (checkpoint.Checkpoint, bool) {
	switch r := rng.IntN(10); {
	case r == 0 && len(p.Build) > 0:
		return commit(cp, tbl, p, map[string]bool{p.Build[rng.IntN(len(p.Build))].Key: true}), false
	case r == 1 && !p.Replacing && len(p.Build) >= 2 && p.SnapshotID != cp.SnapshotID:
		// The batch leaves the checkpoint as complete for its snapshot as
		// it was: trusted again if this plan trusted it.
		return commitBatch(cp, tbl, p, len(p.Build)/2), p.Incremental
	}
	next := commit(cp, tbl, p, nil)
	checkLive(t, tbl, next, p)
	return next, true
}

// checkRemaps checks every remapped group of p against the table (P11):
// its segments hold the rows the checkpoint recorded for its old files,
// and its new files, read with their deletes applied, give exactly as many
// rows, each new file as many as the plan recorded for it.
func checkRemaps(t testing.TB, tbl *table.Table, cp checkpoint.Checkpoint, p *plan.Plan) {
	t.Helper()
	full, err := plan.New(plan.Options{}).Plan(context.Background(), tableName, tbl, checkpoint.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]plan.File{}
	for _, u := range full.Build {
		for _, f := range u.Files {
			files[f.Path] = f
		}
	}
	for _, g := range p.Remaps {
		var held, read int64
		oldSegs, shares := map[string]bool{}, map[string]int{}
		for _, path := range g.Old {
			held += cp.Files[path].Rows
			for _, s := range cp.Files[path].Segments {
				oldSegs[s] = true
			}
		}
		for _, fs := range g.Files {
			for _, s := range fs.Segments {
				shares[s]++
			}
		}
		if len(shares) != len(oldSegs) || len(g.Segments) != len(oldSegs) {
			t.Fatalf("P11: group %s: its old files had %d segments, the group names %d, its new files list %d",
				g.Key, len(oldSegs), len(g.Segments), len(shares))
		}
		for s, n := range shares {
			if n != 1 || !oldSegs[s] {
				t.Fatalf("P11: group %s: segment %s is listed by %d new files (want one) or was not the old files'", g.Key, s, n)
			}
		}
		for path, fs := range g.Files {
			n := fileRows(tbl, files[path])
			if n != fs.Rows {
				t.Fatalf("P11: remapped file %s records %d rows, reading it gives %d", path, fs.Rows, n)
			}
			read += n
		}
		if held != read || held != g.Rows {
			t.Fatalf("P11: group %s: its old files hold %d rows, its new files give %d (plan says %d)", g.Key, held, read, g.Rows)
		}
	}
}

// checkRows reads every live file through the tasks of a full plan (the
// delete files the rules attach) and compares the ids with iceberg-go's
// own scan of the table.
func checkRows(t testing.TB, tbl *table.Table) {
	t.Helper()
	if tbl.CurrentSnapshot() == nil {
		return
	}
	ctx := context.Background()
	p, err := plan.New(plan.Options{}).Plan(ctx, tableName, tbl, checkpoint.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	var tasks []table.FileScanTask
	for _, u := range p.Build {
		for _, f := range u.Files {
			tasks = append(tasks, f.Tasks...)
		}
	}
	got := readIDs(t, tbl, tasks)
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	var want []int64
	col := at.Column(at.Schema().FieldIndices("id")[0])
	for _, c := range col.Data().Chunks() {
		want = append(want, c.(*array.Int64).Int64Values()...)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("reading the plan's tasks gives %d rows, the table scan %d", len(got), len(want))
	}
}

// readIDs reads tasks with iceberg-go and returns the sorted ids.
func readIDs(t testing.TB, tbl *table.Table, tasks []table.FileScanTask) []int64 {
	t.Helper()
	_, batches, err := tbl.Scan().ReadTasks(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for b, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		idx := b.Schema().FieldIndices("id")[0]
		out = append(out, b.Column(idx).(*array.Int64).Int64Values()...)
		b.Release()
	}
	slices.Sort(out)
	return out
}

// goWriter writes with iceberg-go: appends, copy-on-write overwrites and
// deletes, merge-on-read position deletes (v2) and deletion vectors (v3),
// equality deletes and upserts, compaction, rollback, expiry and
// partition spec evolution.
type goWriter struct{ *lake }

func (w goWriter) step(rng *rand.Rand) (string, bool) {
	if w.load().CurrentSnapshot() == nil || w.next == 0 {
		w.appendRows(1 + rng.IntN(30))
		return "append", true
	}
	lo := rng.Int64N(w.next)
	hi := lo + 1 + rng.Int64N(12)
	v2 := w.cfg.version >= 2
	switch r := rng.IntN(100); {
	case r < 30:
		w.appendRows(1 + rng.IntN(40))
		return "append", true
	case r < 38:
		w.overwrite(idRange(lo, hi), 1+rng.IntN(10))
		return "overwrite", true
	case r < 46:
		w.deleteRows(idRange(lo, hi), table.WriteModeCopyOnWrite)
		return "cow-delete", true
	case r < 62 && v2:
		w.deleteRows(idRange(lo, hi), table.WriteModeMergeOnRead)
		if w.cfg.version >= 3 {
			return "dv-delete", true
		}
		return "pos-delete", true
	case r < 74 && v2:
		ids := make([]int64, 1+rng.IntN(4))
		for i := range ids {
			ids[i] = rng.Int64N(w.next)
			if rng.IntN(5) == 0 {
				ids[i] = w.next + rng.Int64N(50) // beyond every file's bounds
			}
		}
		if rng.IntN(2) == 0 {
			w.upsert(ids)
			return "upsert", true
		}
		w.eqDelete(ids)
		return "eq-delete", true
	case r < 84:
		mode := binPack
		switch {
		case r == 83:
			mode = mislabel
		case r >= 81:
			mode = concurrent
		case r >= 78:
			mode = sortLike
		}
		if w.compact(rng, mode) {
			return mode.String(), true
		}
		return "compact-none", true
	case r < 91:
		if w.rollback(rng) {
			return "rollback", false
		}
		return "rollback-none", true
	case r < 97:
		w.expire(rng)
		return "expire", false
	case r < 99:
		return w.evolve(), true
	}
	return "nothing", true
}

// P1, P4, P5, P6: random operation sequences on iceberg-go tables plan
// the same both ways.
func TestPlanner_Plan_PropertyIcebergGo(t *testing.T) {
	seed := propertySeed(t)
	spared := 0
	for i, cfg := range []lakeConfig{{version: 2}, {version: 2, partitioned: true}, {version: 3, partitioned: true},
		{version: 1}, {version: 2, keyed: true}, {version: 2, partitioned: true, keyed: true}} {
		t.Run(cfg.String(), func(t *testing.T) {
			spared += runProperty(t, goWriter{newLake(t, cfg)}, 55, seed, i)
		})
	}
	if spared == 0 {
		t.Fatal("P2: no equality delete spared a file in any run: the test proves nothing about targeted rebuilds")
	}
}
