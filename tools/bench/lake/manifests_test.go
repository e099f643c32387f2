package lake_test

import (
	"maps"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher/plan"
)

// TestBuildManifestPerFile: the table lists one manifest per data file,
// each adding its file under its own snapshot id and sequence number;
// history is expired to the last lake.KeepSnapshots; iceberg-go scans every
// row; floe's planner sees every file and folds a later one-file commit,
// which keeps the shape.
func TestBuildManifestPerFile(t *testing.T) {
	ctx := t.Context()
	const files, rows = 12, 7
	l, err := lake.BuildManifestPerFile(ctx, t.TempDir(), files, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tbl := checkShape(t, l, files)
	checkScan(t, tbl, files, rows)

	full, err := plan.New(plan.Options{}).Plan(ctx, "events", tbl, checkpoint.Checkpoint{})
	if err != nil {
		t.Fatalf("floe plan of the whole table: %v", err)
	}
	if full.LiveFiles != files || len(unitFiles(full)) != files {
		t.Fatalf("floe plan: %d live files, %d to build, want %d", full.LiveFiles, len(unitFiles(full)), files)
	}
	cp := commit(tbl, full)
	before := manifestPaths(t, tbl)

	if err := l.AddFiles(ctx, 1); err != nil {
		t.Fatal(err)
	}
	tbl = checkShape(t, l, files+1)
	after := manifestPaths(t, tbl)
	for p := range before {
		if !after[p] {
			t.Errorf("manifest %s was dropped by a one-file commit", p)
		}
	}
	checkScan(t, tbl, files+1, rows)
	folded, err := plan.New(plan.Options{}).Plan(ctx, "events", tbl, cp)
	if err != nil {
		t.Fatalf("floe plan of a one-file commit: %v", err)
	}
	if !folded.Incremental || len(unitFiles(folded)) != 1 || folded.LiveFiles != files+1 {
		t.Fatalf("floe plan of a one-file commit: incremental %v (fallback %q), %d files to build, %d live; want a fold of 1 file, %d live",
			folded.Incremental, folded.Fallback, len(unitFiles(folded)), folded.LiveFiles, files+1)
	}
}

// checkShape checks the current snapshot of a table of files data files:
// one data manifest per file, each one ADDED entry of the manifest's own
// snapshot id, sequence numbers all different, the newest the snapshot's;
// lake.KeepSnapshots snapshots in the metadata.
func checkShape(t *testing.T, l *lake.Lake, files int) *table.Table {
	t.Helper()
	tbl, err := l.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tbl.Metadata().Snapshots()); n != lake.KeepSnapshots {
		t.Errorf("%d snapshots in the metadata, want %d", n, lake.KeepSnapshots)
	}
	fs, err := tbl.FS(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	snap := tbl.CurrentSnapshot()
	ms, err := snap.Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != files {
		t.Fatalf("%d manifests listed, want %d (one per data file)", len(ms), files)
	}
	seqs, ids := map[int64]bool{}, map[int64]bool{}
	for _, m := range ms {
		seqs[m.SequenceNum()], ids[m.SnapshotID()] = true, true
		var entries []iceberg.ManifestEntry
		for e, err := range m.Entries(fs, false) {
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, e)
		}
		if len(entries) != 1 || entries[0].Status() != iceberg.EntryStatusADDED ||
			entries[0].SnapshotID() != m.SnapshotID() || entries[0].SequenceNum() != m.SequenceNum() {
			t.Fatalf("manifest %s: %d entries, want one ADDED entry of its snapshot and sequence number", m.FilePath(), len(entries))
		}
	}
	if len(seqs) != files || len(ids) != files {
		t.Errorf("%d sequence numbers and %d snapshot ids over %d manifests, want one each", len(seqs), len(ids), files)
	}
	if ms[0].SnapshotID() != snap.SnapshotID || ms[0].SequenceNum() != snap.SequenceNumber {
		t.Errorf("first manifest of snapshot %d (seq %d) was added by %d (seq %d)",
			snap.SnapshotID, snap.SequenceNumber, ms[0].SnapshotID(), ms[0].SequenceNum())
	}
	return tbl
}

// checkScan checks that iceberg-go plans files files and reads their rows.
func checkScan(t *testing.T, tbl *table.Table, files, rows int) {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != files {
		t.Errorf("iceberg-go plans %d files, want %d", len(tasks), files)
	}
	at, err := tbl.Scan().ToArrowTable(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	if at.NumRows() != int64(files*rows) {
		t.Errorf("iceberg-go reads %d rows, want %d", at.NumRows(), files*rows)
	}
}

func manifestPaths(t *testing.T, tbl *table.Table) map[string]bool {
	t.Helper()
	fs, err := tbl.FS(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ms, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range ms {
		out[m.FilePath()] = true
	}
	return out
}

func unitFiles(p *plan.Plan) []string {
	var out []string
	for _, u := range p.Build {
		for _, f := range u.Files {
			out = append(out, f.Path)
		}
	}
	return out
}

// commit is the checkpoint a run of p leaves.
func commit(tbl *table.Table, p *plan.Plan) checkpoint.Checkpoint {
	files := maps.Clone(p.Keep)
	if files == nil {
		files = map[string]checkpoint.FileState{}
	}
	for _, u := range p.Build {
		maps.Copy(files, u.FileStates([]string{u.SegmentName(0)}, 100))
	}
	return checkpoint.Checkpoint{Table: "events", SnapshotID: p.SnapshotID, SequenceNumber: p.SequenceNumber,
		MetadataLocation: tbl.MetadataLocation(), TableUUID: tbl.Metadata().TableUUID().String(), Files: files}
}
