package plan_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// plans plans tbl against cp incrementally and with the full-state diff
// and fails unless both plans are the same (P1).
func plans(t testing.TB, p *plan.Planner, tbl *table.Table, cp checkpoint.Checkpoint) *plan.Plan {
	t.Helper()
	ctx := context.Background()
	inc, err := p.Plan(ctx, tableName, tbl, cp)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	full, err := p.PlanFull(ctx, tableName, tbl, cp)
	if err != nil {
		t.Fatalf("full plan: %v", err)
	}
	if a, b := describe(inc), describe(full); a != b {
		t.Fatalf("P1: incremental plan (fallback %q) differs from the full-state diff, %s", inc.Fallback, firstDiff(a, b))
	}
	checkLazy(t, p, tbl, cp, inc)
	return inc
}

// checkLazy checks P14: where PlanLazy plans from cp's unread map, its plan
// is want but for Keep (nil, KeptFiles counts it), and the entries it read
// are cp's entries of every checkpointed file the plan names.
func checkLazy(t testing.TB, p *plan.Planner, tbl *table.Table, cp checkpoint.Checkpoint, want *plan.Plan) {
	t.Helper()
	if cp.SnapshotID == 0 {
		return
	}
	header := cp
	header.Files = nil
	got, read, reason, err := p.PlanLazy(context.Background(), tableName, tbl, header, checkpoint.CountFiles(cp.Files), mapFiles(cp.Files))
	if err != nil {
		t.Fatalf("lazy plan: %v", err)
	}
	if reason != "" {
		return
	}
	if a, b := withoutKeep(describe(got)), withoutKeep(describe(want)); a != b || got.Keep != nil || got.KeptFiles != len(want.Keep) ||
		!got.Incremental {
		t.Fatalf("P14: lazy plan (kept %d, incremental %v) differs from the plan of the whole map (kept %d): %s",
			got.KeptFiles, got.Incremental, len(want.Keep), firstDiff(a, b))
	}
	named := slices.Clone(got.Drop)
	for _, u := range got.Build {
		for _, f := range u.Files {
			if _, ok := cp.Files[f.Path]; ok {
				named = append(named, f.Path)
			}
		}
	}
	for _, path := range named {
		if fs, ok := read[path]; !ok || !reflect.DeepEqual(fs, cp.Files[path]) {
			t.Fatalf("P14: lazy plan names checkpointed file %s but read %+v (%v), the checkpoint has %+v", path, fs, ok, cp.Files[path])
		}
	}
}

func withoutKeep(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "keep ") }), "\n")
}

// mapFiles reads a whole file map as a store's index does (plan.Files).
type mapFiles checkpoint.MapFiles

func (m mapFiles) LookupFiles(_ context.Context, paths []string) (map[string]checkpoint.FileState, error) {
	return checkpoint.MapFiles(m).Lookup(paths), nil
}

func (m mapFiles) SmallUnits(_ context.Context, parts []string, below int64) ([]checkpoint.StoredUnit, error) {
	return checkpoint.MapFiles(m).SmallUnits(parts, below), nil
}

// P4: appends fold; the checkpoint's files are kept, only new ones built.
func TestPlanner_Plan_AppendsFold(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	p := plan.New(plan.Options{})
	l.appendRows(10)
	first := plans(t, p, l.load(), checkpoint.Checkpoint{})
	if first.Incremental || first.Fallback != "no checkpointed snapshot" || len(first.Build) != 1 || first.Replacing {
		t.Fatalf("first plan: %+v", first)
	}
	cp := commit(checkpoint.Checkpoint{}, l.load(), first, nil)
	l.appendRows(5)
	l.appendRows(5)
	second := plans(t, p, l.load(), cp)
	if !second.Incremental || len(second.Build) != 2 || len(second.Keep) != 1 || second.Replacing || second.LiveFiles != 3 {
		t.Fatalf("P4: want an incremental pure addition of 2 files, got %+v", second)
	}
}

// P5: a rollback is planned with the full-state diff and says why.
func TestPlanner_Plan_RollbackFallsBack(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	p := plan.New(plan.Options{})
	l.appendRows(10)
	l.appendRows(10)
	cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}), nil)
	tbl := l.load()
	tx := tbl.NewTransaction()
	if err := tx.RollbackToSnapshot(*tbl.CurrentSnapshot().ParentSnapshotID); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.appendRows(3)
	got := plans(t, p, l.load(), cp)
	if got.Incremental || !strings.Contains(got.Fallback, "not an ancestor") || len(got.Drop) != 1 || !got.Replacing {
		t.Fatalf("P5: want a full-state diff dropping the rolled-back file, got %+v", got)
	}
}

// countingIO records every file a plan opens.
type countingIO struct {
	iceio.IO
	mu     sync.Mutex
	opened []string
}

func (c *countingIO) Open(name string) (iceio.File, error) {
	c.mu.Lock()
	c.opened = append(c.opened, filepath.Base(name))
	c.mu.Unlock()
	return c.IO.Open(name)
}

// counted returns tbl reading through a countingIO.
func counted(t testing.TB, tbl *table.Table) (*table.Table, *countingIO) {
	t.Helper()
	fs, err := tbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := &countingIO{IO: fs}
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(),
		func(context.Context) (iceio.IO, error) { return c, nil }, nil), c
}

// P4, P7: planning a snapshot whose manifests are cached reads nothing; a
// one-file append reads its manifest list and its manifest, even with a
// cold cache; a deletion vector on one file reads its list and its delete
// manifest once the rest is cached, and rebuilds that file only.
func TestPlanner_Plan_ReadsOnlyWhatChanged(t *testing.T) {
	l := newLake(t, lakeConfig{version: 3})
	for i := 0; i < 6; i++ {
		l.appendRows(10)
	}
	warm := plan.New(plan.Options{})
	cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, warm, l.load(), checkpoint.Checkpoint{}), nil)

	tbl, c := counted(t, l.load())
	if p := plans(t, warm, tbl, cp); len(p.Build) != 0 || len(c.opened) != 0 {
		t.Fatalf("P7: an unchanged snapshot with a warm cache read %v (plan %+v)", c.opened, p)
	}

	l.appendRows(10)
	for name, p := range map[string]*plan.Planner{"warm": warm, "cold": plan.New(plan.Options{})} {
		tbl, c := counted(t, l.load())
		got, err := p.Plan(context.Background(), tableName, tbl, cp)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Incremental || len(got.Build) != 1 || len(c.opened) != 2 || !strings.HasPrefix(c.opened[0], "snap-") {
			t.Fatalf("P4 (%s cache): a one-file append must fold reading its manifest list and manifest, read %v (plan %+v)",
				name, c.opened, got)
		}
	}
	cp = commit(cp, l.load(), plans(t, warm, l.load(), cp), nil)

	l.deleteRows(idRange(3, 5), table.WriteModeMergeOnRead)
	tbl, c = counted(t, l.load())
	got, err := warm.Plan(context.Background(), tableName, tbl, cp)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Incremental || len(got.Build) != 1 || !got.Replacing || len(got.Keep) != 6 || len(c.opened) != 2 {
		t.Fatalf("P4: a deletion vector must fold reading its manifest list and delete manifest, read %v (plan %+v)",
			c.opened, got)
	}
}

// P6, P8: small files coalesce; a deletion vector on one member rebuilds
// its unit from all its members (Replacing); new small files form units
// of their own without touching kept ones (not Replacing).
func TestPlanner_Plan_CoalescedUnits(t *testing.T) {
	l := newLake(t, lakeConfig{version: 3})
	p := plan.New(plan.Options{CoalesceBelowBytes: 1 << 20, TargetSegmentBytes: 1 << 20})
	for i := 0; i < 4; i++ {
		l.appendRows(10)
	}
	first := plans(t, p, l.load(), checkpoint.Checkpoint{})
	if len(first.Build) != 1 || len(first.Build[0].Files) != 4 || !strings.HasPrefix(first.Build[0].Key, "events_g") {
		t.Fatalf("P6: four small files must make one unit: %+v", first.Build)
	}
	cp := commit(checkpoint.Checkpoint{}, l.load(), first, nil)

	l.appendRows(10)
	l.appendRows(10)
	added := plans(t, p, l.load(), cp)
	if !added.Incremental || added.Replacing || len(added.Keep) != 4 || len(added.Build) != 1 || len(added.Build[0].Files) != 2 {
		t.Fatalf("P6, P8: new small files make their own unit, a pure addition: %+v", added)
	}
	cp = commit(cp, l.load(), added, nil)

	l.deleteRows(idRange(0, 2), table.WriteModeMergeOnRead) // a row of the first file
	changed := plans(t, p, l.load(), cp)
	if !changed.Incremental || !changed.Replacing || len(changed.Build) != 1 || len(changed.Build[0].Files) != 4 ||
		len(changed.Keep) != 2 || changed.Build[0].Key == first.Build[0].Key {
		t.Fatalf("P6, P8: the unit of the changed file is rebuilt with all its members under a new key: %+v", changed)
	}
	cp = commit(cp, l.load(), changed, nil)

	l.deleteRows(idRange(40, 50), table.WriteModeCopyOnWrite) // the fifth file goes away
	dropped := plans(t, p, l.load(), cp)
	if !dropped.Replacing || len(dropped.Drop) != 1 || len(dropped.Build) != 1 || len(dropped.Build[0].Files) != 1 {
		t.Fatalf("P6: the unit that lost a member is rebuilt from the one left: %+v", dropped)
	}
}

// P5: the fold is not trusted for a re-created table, a checkpoint
// without data sequence numbers, or a checkpoint that misses a live file;
// a backfill's committed files are kept by the fold.
func TestPlanner_Plan_Fallbacks(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	p := plan.New(plan.Options{})
	l.appendRows(10)
	l.appendRows(10)
	first := plans(t, p, l.load(), checkpoint.Checkpoint{})
	cp := commit(checkpoint.Checkpoint{}, l.load(), first, nil)
	l.appendRows(10)

	old := cp
	old.Files = map[string]checkpoint.FileState{}
	for path, fs := range cp.Files {
		fs.DataSeq, fs.Partition = 0, ""
		old.Files[path] = fs
	}
	if got := plans(t, p, l.load(), old); got.Incremental || !strings.Contains(got.Fallback, "no data sequence number or partition") ||
		len(got.Build) != 1 || got.Keep[first.Build[0].Files[0].Path].DataSeq == 0 {
		t.Fatalf("P5: a checkpoint from before data sequence numbers: want a full diff that records them, got %+v", got)
	}

	failed := commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}),
		map[string]bool{first.Build[0].Key: true})
	l.appendRows(10)
	if got := plans(t, p, l.load(), failed); got.Incremental || !strings.Contains(got.Fallback, "checkpoint incomplete") ||
		len(got.Build) != 2 {
		t.Fatalf("P5: a checkpoint missing a failed file: want a full diff rebuilding it, got %+v", got)
	}

	all := plans(t, p, l.load(), cp)
	batch := commitBatch(cp, l.load(), all, 1)
	if got := plans(t, p, l.load(), batch); !got.Incremental || len(got.Build) != 1 || len(got.Keep) != 3 {
		t.Fatalf("a backfill batch's files must be kept by the fold: %+v", got)
	}

	uuid := cp
	uuid.TableUUID = "00000000-0000-0000-0000-000000000000"
	if got := plans(t, p, l.load(), uuid); got.Incremental || !strings.Contains(got.Fallback, "re-created") {
		t.Fatalf("P5: another table UUID: want a full diff, got %+v", got)
	}
}
