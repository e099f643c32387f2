package plan_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

const tableName = "events"

// commit applies a plan to a checkpoint the way a run does: the kept
// files, the remapped groups' files, plus the file states of every built
// unit but those in failed (continueOnFileError: a failed unit's files
// keep their old state). Like a run, it records the rows each file gives
// with its deletes applied.
func commit(cp checkpoint.Checkpoint, tbl *table.Table, p *plan.Plan, failed map[string]bool) checkpoint.Checkpoint {
	files := maps.Clone(p.Keep)
	maps.Copy(files, p.Refresh)
	for _, g := range p.Remaps {
		maps.Copy(files, g.Files)
	}
	for _, u := range p.Build {
		if failed[u.Key] {
			for _, f := range u.Files {
				if old, ok := cp.Files[f.Path]; ok {
					files[f.Path] = old
				}
			}
			continue
		}
		maps.Copy(files, builtStates(tbl, u))
	}
	return checkpoint.Checkpoint{Table: tableName, SnapshotID: p.SnapshotID, SequenceNumber: p.SequenceNumber,
		MetadataLocation: tbl.MetadataLocation(), TableUUID: tbl.Metadata().TableUUID().String(), SchemaID: p.SchemaID,
		Files: files}
}

// commitBatch commits the first n units of a plan that only adds files,
// as a backfill batch: the checkpoint's snapshot stays where it was.
func commitBatch(cp checkpoint.Checkpoint, tbl *table.Table, p *plan.Plan, n int) checkpoint.Checkpoint {
	files := maps.Clone(cp.Files)
	if files == nil {
		files = map[string]checkpoint.FileState{}
	}
	maps.Copy(files, p.Refresh)
	for _, g := range p.Remaps {
		for _, path := range g.Old {
			delete(files, path)
		}
		maps.Copy(files, g.Files)
	}
	for _, u := range p.Build[:n] {
		maps.Copy(files, builtStates(tbl, u))
	}
	cp.Files = files
	cp.Backfill = &checkpoint.Backfill{SnapshotID: p.SnapshotID, FilesDone: n, FilesTotal: len(p.Build)}
	return cp
}

// builtStates are the checkpoint entries of a built unit, each file with
// the rows it gives once its deletes apply (read with iceberg-go), as a
// run records them.
func builtStates(tbl *table.Table, u plan.Unit) map[string]checkpoint.FileState {
	out := u.FileStates([]string{u.SegmentName(0)}, 0)
	for _, f := range u.Files {
		fs := out[f.Path]
		fs.Rows = fileRows(tbl, f)
		out[f.Path] = fs
	}
	return out
}

// fileRows reads a file through its tasks and counts its rows (-1 when it
// cannot be read, which no check accepts).
func fileRows(tbl *table.Table, f plan.File) int64 {
	_, batches, err := tbl.Scan().ReadTasks(context.Background(), f.Tasks)
	if err != nil {
		return -1
	}
	var n int64
	for b, err := range batches {
		if err != nil {
			return -1
		}
		n += b.NumRows()
		b.Release()
	}
	return n
}

// describe renders everything a plan says except how it was planned, so
// that two plans compare as text (P1).
func describe(p *plan.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "snapshot %d seq %d schema %d live %d replacing %v\n", p.SnapshotID, p.SequenceNumber,
		p.SchemaID, p.LiveFiles, p.Replacing)
	for _, u := range p.Build {
		fmt.Fprintf(&b, "build %s\n", u.Key)
		for _, f := range u.Files {
			fmt.Fprintf(&b, "  file %s fp=%q part=%q seq=%d rows=%d size=%d\n", f.Path, f.DeleteFingerprint,
				f.Partition, f.DataSeq, f.Rows, f.SizeBytes)
			for _, tk := range f.Tasks {
				fmt.Fprintf(&b, "    task %s [%d,+%d) seq=%v deletes=%v\n", tk.File.FilePath(), tk.Start, tk.Length,
					derefSeq(tk.DataSequenceNumber), taskDeletes(tk))
			}
		}
	}
	for _, path := range slices.Sorted(maps.Keys(p.Keep)) {
		fmt.Fprintf(&b, "keep %s %+v\n", path, p.Keep[path])
	}
	for _, path := range p.Drop {
		fmt.Fprintf(&b, "drop %s\n", path)
	}
	for _, g := range p.Remaps {
		fmt.Fprintf(&b, "remap %s old=%v segments=%v rows=%d\n", g.Key, g.Old, g.Segments, g.Rows)
		for _, path := range slices.Sorted(maps.Keys(g.Files)) {
			fmt.Fprintf(&b, "  owner %s %+v\n", path, g.Files[path])
		}
	}
	fmt.Fprintf(&b, "remap fallback %q\n", p.RemapFallback)
	return b.String()
}

func derefSeq(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// taskDeletes lists a task's delete files, sorted.
func taskDeletes(tk table.FileScanTask) []string {
	var out []string
	for _, d := range tk.DeleteFiles {
		out = append(out, "pos:"+d.FilePath())
	}
	for _, d := range tk.EqualityDeleteFiles {
		out = append(out, "eq:"+d.FilePath())
	}
	for _, d := range tk.DeletionVectorFiles {
		out = append(out, "dv:"+d.FilePath())
	}
	slices.Sort(out)
	return out
}

// firstDiff returns the first differing lines of two descriptions.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  incremental: %s\n  full:        %s", i+1, x, y)
		}
	}
	return ""
}

// checkLive asserts that a checkpoint committed from a complete plan holds
// exactly the live data files iceberg-go's own scan planning sees, and
// that every delete file iceberg-go attaches to a file is one the plan
// attached, but for equality deletes the plan's key pruning left out
// (P2), which must then hold no id of the file's rows.
func checkLive(t testing.TB, tbl *table.Table, cp checkpoint.Checkpoint, p *plan.Plan) {
	t.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	built := map[string][]string{}
	for _, u := range p.Build {
		for _, f := range u.Files {
			for _, tk := range f.Tasks {
				built[f.Path] = append(built[f.Path], taskDeletes(tk)...)
			}
		}
	}
	live := map[string]bool{}
	for _, tk := range tasks {
		path := tk.File.FilePath()
		live[path] = true
		if _, ok := cp.Files[path]; !ok {
			t.Fatalf("live file %s missing from the checkpoint", path)
		}
		if got, ok := built[path]; ok {
			for _, d := range taskDeletes(tk) {
				if !slices.Contains(got, d) && !strings.HasPrefix(d, "eq:") {
					t.Fatalf("file %s: iceberg-go applies %s, the plan does not (plan has %v)", path, d, got)
				}
			}
			checkPruned(t, tbl, tk, got)
		}
	}
	for path := range cp.Files {
		if !live[path] {
			t.Fatalf("checkpoint holds %s, which is not live", path)
		}
	}
}

// checkPruned asserts that every equality delete file iceberg-go attaches
// to a task's file and the plan does not (got) deletes none of its rows:
// the file's ids and the delete's are disjoint (P2).
func checkPruned(t testing.TB, tbl *table.Table, tk table.FileScanTask, got []string) {
	t.Helper()
	var ids []int64
	for _, d := range tk.EqualityDeleteFiles {
		if slices.Contains(got, "eq:"+d.FilePath()) {
			continue
		}
		if ids == nil {
			ids = fileIDs(t, tbl, tk.File)
		}
		for _, id := range fileIDs(t, tbl, d) {
			if _, found := slices.BinarySearch(ids, id); found {
				t.Fatalf("P2: file %s holds id %d, which equality delete file %s deletes; the plan left the delete out",
					tk.File.FilePath(), id, d.FilePath())
			}
		}
	}
}

// fileIDs reads the ids of one Parquet file of the table (a data file or
// an equality delete file), no delete applied, sorted.
func fileIDs(t testing.TB, tbl *table.Table, df iceberg.DataFile) []int64 {
	t.Helper()
	_, batches, err := tbl.Scan(table.WithSelectedFields("id")).ReadTasks(context.Background(),
		[]table.FileScanTask{{File: df, Length: df.FileSizeBytes()}})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for b, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
		b.Release()
	}
	slices.Sort(out)
	return out
}
