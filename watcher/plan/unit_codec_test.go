package plan_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// P9: every unit of a table with position deletes (v2), deletion vectors
// (v3) and equality deletes, encoded and decoded, reads the same rows
// through ReadTasks as the planned unit, and its data files carry the
// same fields.
func TestEncodeUnit_RoundTrip(t *testing.T) {
	for _, cfg := range []lakeConfig{{version: 2, partitioned: true}, {version: 3, partitioned: true}, {version: 3}} {
		t.Run(cfg.String(), func(t *testing.T) {
			l := newLake(t, cfg)
			l.appendRows(60)
			l.appendRows(30)
			l.deleteRows(idRange(5, 20), table.WriteModeMergeOnRead)
			l.deleteRows(idRange(70, 75), table.WriteModeMergeOnRead)
			l.eqDelete([]int64{1, 2, 40, 88})
			l.upsert([]int64{50, 51})
			tbl := l.load()
			p, err := plan.New(plan.Options{CoalesceBelowBytes: 1 << 20}).Plan(context.Background(), tableName, tbl, checkpoint.Checkpoint{})
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]bool{}
			for _, u := range p.Build {
				b, err := plan.EncodeUnit(u)
				if err != nil {
					t.Fatal(err)
				}
				got, err := plan.DecodeUnit(b, tbl)
				if err != nil {
					t.Fatal(err)
				}
				if got.Key != u.Key || len(got.Files) != len(u.Files) {
					t.Fatalf("decoded unit %s with %d files, want %s with %d", got.Key, len(got.Files), u.Key, len(u.Files))
				}
				for i, f := range u.Files {
					compareFile(t, f, got.Files[i], kinds)
				}
				want, have := readIDs(t, tbl, unitTasks(u)), readIDs(t, tbl, unitTasks(got))
				if !slices.Equal(want, have) {
					t.Fatalf("unit %s: decoded tasks read %d rows, planned ones %d", u.Key, len(have), len(want))
				}
			}
			for _, k := range []string{"eq", dvOrPos(cfg)} {
				if !kinds[k] {
					t.Fatalf("the table has no %s delete files: the test proves nothing about them (%v)", k, kinds)
				}
			}
		})
	}
}

func dvOrPos(cfg lakeConfig) string {
	if cfg.version >= 3 {
		return "dv"
	}
	return "pos"
}

func unitTasks(u plan.Unit) []table.FileScanTask {
	var out []table.FileScanTask
	for _, f := range u.Files {
		out = append(out, f.Tasks...)
	}
	return out
}

// compareFile checks that a decoded file matches the planned one, field
// by field, delete files included; kinds records the delete kinds seen.
func compareFile(t *testing.T, want, got plan.File, kinds map[string]bool) {
	t.Helper()
	if want.Path != got.Path || want.DeleteFingerprint != got.DeleteFingerprint || want.Partition != got.Partition ||
		want.DataSeq != got.DataSeq || want.Rows != got.Rows || want.SizeBytes != got.SizeBytes || len(want.Tasks) != len(got.Tasks) {
		t.Fatalf("decoded file %+v, want %+v", got, want)
	}
	for i, wt := range want.Tasks {
		gt := got.Tasks[i]
		if wt.Start != gt.Start || wt.Length != gt.Length || fmt.Sprint(derefSeq(wt.DataSequenceNumber)) != fmt.Sprint(derefSeq(gt.DataSequenceNumber)) {
			t.Fatalf("file %s: task [%d,+%d) seq %v decoded as [%d,+%d) seq %v", want.Path, wt.Start, wt.Length,
				derefSeq(wt.DataSequenceNumber), gt.Start, gt.Length, derefSeq(gt.DataSequenceNumber))
		}
		compareDataFile(t, wt.File, gt.File)
		for kind, pair := range map[string][2][]iceberg.DataFile{"pos": {wt.DeleteFiles, gt.DeleteFiles},
			"eq": {wt.EqualityDeleteFiles, gt.EqualityDeleteFiles}, "dv": {wt.DeletionVectorFiles, gt.DeletionVectorFiles}} {
			if len(pair[0]) != len(pair[1]) {
				t.Fatalf("file %s: %d %s delete files decoded as %d", want.Path, len(pair[0]), kind, len(pair[1]))
			}
			for k := range pair[0] {
				compareDataFile(t, pair[0][k], pair[1][k])
				kinds[kind] = true
			}
		}
	}
}

func compareDataFile(t *testing.T, want, got iceberg.DataFile) {
	t.Helper()
	// Rendered as text: a nil and an empty slice, or two pointers to the
	// same value, are the same field.
	get := func(df iceberg.DataFile) string {
		return fmt.Sprintf("%v %s %s spec=%d part=%v count=%d size=%d eq=%v ref=%v offset=%v len=%v first=%v splits=%v",
			df.ContentType(), df.FilePath(), df.FileFormat(), df.SpecID(), df.Partition(), df.Count(), df.FileSizeBytes(),
			df.EqualityFieldIDs(), derefString(df.ReferencedDataFile()), derefSeq(df.ContentOffset()),
			derefSeq(df.ContentSizeInBytes()), derefSeq(df.FirstRowID()), df.SplitOffsets())
	}
	if w, g := get(want), get(got); w != g {
		t.Fatalf("data file decoded as\n  %s\nwant\n  %s", g, w)
	}
}

func derefString(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
