package plan_test

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// manifestFields is what the planner reads of a manifest list entry.
func manifestFields(m iceberg.ManifestFile) []any {
	return []any{m.FilePath(), m.Length(), m.PartitionSpecID(), m.ManifestContent(), m.SequenceNum(),
		m.MinSequenceNum(), m.SnapshotID(), m.AddedDataFiles(), m.ExistingDataFiles(), m.DeletedDataFiles(),
		m.AddedRows(), m.ExistingRows(), m.DeletedRows()}
}

// P13: the lean reader reads every entry of a format 2 manifest list as
// iceberg-go does; the head of a one-file append's list is its own
// manifest, which writers list first.
func TestPlanner_ListHead_LeanReaderMatchesIceberg(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	for range 6 {
		l.appendRows(10)
	}
	ctx := context.Background()
	tbl := l.load()
	snap := *tbl.CurrentSnapshot()
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := snap.Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.New(plan.Options{})
	got, err := p.ReadListLean(ctx, tbl, snap)
	if err != nil {
		t.Fatalf("lean read: %v", err)
	}
	if len(got) != len(want) || len(want) < 6 {
		t.Fatalf("lean read %d manifests, iceberg-go %d (want at least 6)", len(got), len(want))
	}
	for i := range want {
		if a, b := manifestFields(got[i]), manifestFields(want[i]); !reflect.DeepEqual(a, b) {
			t.Fatalf("manifest %d: lean %v, iceberg-go %v", i, a, b)
		}
	}
	head, whole, err := p.ListHead(ctx, tbl, snap)
	if err != nil {
		t.Fatal(err)
	}
	if whole || len(head) != 1 || head[0].SnapshotID() != snap.SnapshotID || head[0].AddedDataFiles() != 1 {
		t.Fatalf("P13: the head of a one-file append's list must be its one manifest, got %d (whole %v)", len(head), whole)
	}
	if st := p.CacheStats(); st.ListHeads != 1 {
		t.Fatalf("P13: want 1 list read to its head, counted %d", st.ListHeads)
	}
}

// P13: a one-file append on a table of many manifests folds reading only
// the head of its list; a format 3 list is read whole.
func TestPlanner_Plan_FoldReadsListHead(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run("v"+strconv.Itoa(version), func(t *testing.T) {
			l := newLake(t, lakeConfig{version: version})
			for range 5 {
				l.appendRows(10)
			}
			p := plan.New(plan.Options{})
			cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}), nil)
			l.appendRows(10)
			cold := plan.New(plan.Options{})
			got, err := cold.Plan(context.Background(), tableName, l.load(), cp)
			if err != nil {
				t.Fatal(err)
			}
			heads := cold.CacheStats().ListHeads
			if !got.Incremental || len(got.Build) != 1 || got.LiveFiles != 6 {
				t.Fatalf("P4: want a one-file fold, got %+v", got)
			}
			if want := int64(0); version == 2 {
				want = 1
				if heads != want {
					t.Fatalf("P13: a format 2 one-file append must read its list's head, counted %d", heads)
				}
			} else if heads != want {
				t.Fatalf("P13: a format 3 list must be read whole, counted %d heads", heads)
			}
		})
	}
}

// P13, P5: when the fold read only the list's head, the summary's
// total-data-files checks it: a summary that counts another total, or
// that leaves out the file its snapshot added (so the head holds none of
// it), makes the plan fall back to the full-state diff, which finds the
// table's 4 files.
func TestPlanner_Plan_HeadCountedBySummary(t *testing.T) {
	l := newLake(t, lakeConfig{version: 2})
	for range 3 {
		l.appendRows(10)
	}
	p := plan.New(plan.Options{})
	cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}), nil)
	l.appendRows(10)
	tbl := l.load()
	snap := tbl.CurrentSnapshot()
	for name, change := range map[string]map[string]string{
		"another total":     {"total-data-files": "7"},
		"added file missed": {"added-data-files": "0"},
	} {
		t.Run(name, func(t *testing.T) {
			props := iceberg.Properties{}
			for k, v := range snap.Summary.Properties {
				props[k] = v
			}
			for k, v := range change {
				props[k] = v
			}
			bad := *snap
			bad.Summary = &table.Summary{Operation: snap.Summary.Operation, Properties: props}
			got, err := plan.New(plan.Options{}).PlanSnapshot(context.Background(), tableName, tbl, &bad, cp)
			if err != nil {
				t.Fatal(err)
			}
			if got.Incremental || got.LiveFiles != 4 || len(got.Build) != 1 {
				t.Fatalf("P5: a summary with %v must make the plan fall back to the full-state diff, got %+v", change, got)
			}
		})
	}
}
