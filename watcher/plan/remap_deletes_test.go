package plan_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// posDelete is a live position delete file with its data sequence number.
type posDelete struct {
	df  iceberg.DataFile
	seq int64
}

// positionDeletes lists the table's live position delete files.
func (l *lake) positionDeletes() []posDelete {
	ctx := context.Background()
	tbl := l.load()
	fs, err := tbl.FS(ctx)
	if err != nil {
		l.t.Fatal(err)
	}
	ms, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		l.t.Fatal(err)
	}
	var out []posDelete
	for _, m := range ms {
		if m.ManifestContent() != iceberg.ManifestContentDeletes {
			continue
		}
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				l.t.Fatal(err)
			}
			if e.Status() != iceberg.EntryStatusDELETED && e.DataFile().ContentType() == iceberg.EntryContentPosDeletes {
				out = append(out, posDelete{df: e.DataFile(), seq: e.SequenceNum()})
			}
		}
	}
	slices.SortFunc(out, func(a, b posDelete) int { return strings.Compare(a.df.FilePath(), b.df.FilePath()) })
	return out
}

// dataFiles lists the live data files in the order their ids run.
func (l *lake) dataFiles() []iceberg.DataFile {
	tasks, err := l.load().Scan().PlanFiles(context.Background())
	if err != nil {
		l.t.Fatal(err)
	}
	var out []iceberg.DataFile
	for _, tk := range tasks {
		out = append(out, tk.File)
	}
	slices.SortFunc(out, func(a, b iceberg.DataFile) int {
		return int(fileIDs(l.t, l.load(), a)[0] - fileIDs(l.t, l.load(), b)[0])
	})
	return out
}

// readPositions reads a position delete file's (file_path, pos) rows.
func (l *lake) readPositions(df iceberg.DataFile) (paths []string, pos []int64) {
	ctx := context.Background()
	fs, err := l.load().FS(ctx)
	if err != nil {
		l.t.Fatal(err)
	}
	f, err := fs.Open(df.FilePath())
	if err != nil {
		l.t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(ctx, f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		l.t.Fatal(err)
	}
	defer tbl.Release()
	for _, c := range tbl.Column(0).Data().Chunks() {
		for i := range c.Len() {
			paths = append(paths, c.(*array.String).Value(i))
		}
	}
	for _, c := range tbl.Column(1).Data().Chunks() {
		pos = append(pos, c.(*array.Int64).Values()...)
	}
	return paths, pos
}

// writePositions writes a position delete file of one data file's
// positions, with its file_path bounds (both the path) and its
// referenced data file, as Iceberg writers record them.
func (l *lake) writePositions(like iceberg.DataFile, path string, pos []int64, tag string) iceberg.DataFile {
	ctx := context.Background()
	tbl := l.load()
	fs, err := tbl.FS(ctx)
	if err != nil {
		l.t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "file_path", Type: arrow.BinaryTypes.String, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"2147483546"})},
		{Name: "pos", Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"2147483545"})},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, p := range pos {
		b.Field(0).(*array.StringBuilder).Append(path)
		b.Field(1).(*array.Int64Builder).Append(p)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	loc := strings.TrimSuffix(like.FilePath(), ".parquet") + "-pos-" + tag + ".parquet"
	w, err := fs.(iceio.WriteFileIO).Create(loc)
	if err != nil {
		l.t.Fatal(err)
	}
	pw, err := pqarrow.NewFileWriter(sc, w, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		l.t.Fatal(err)
	}
	if err := pw.Write(rec); err != nil {
		l.t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		l.t.Fatal(err)
	}
	spec := tbl.Metadata().PartitionSpec()
	for _, ps := range tbl.Metadata().PartitionSpecs() {
		if int32(ps.ID()) == like.SpecID() {
			spec = ps // the data file's own spec (the table's may have evolved since)
		}
	}
	bld, err := iceberg.NewDataFileBuilder(spec, iceberg.EntryContentPosDeletes, loc, iceberg.ParquetFile,
		like.Partition(), nil, nil, int64(len(pos)), 1024)
	if err != nil {
		l.t.Fatal(err)
	}
	bounds := map[int][]byte{2147483546: []byte(path)}
	return bld.LowerBoundValues(bounds).UpperBoundValues(bounds).ReferencedDataFile(path).Build()
}

// positionDelete commits a position delete file of the data file at path
// (with its file_path bounds, so it is counted as the file's alone).
func (l *lake) positionDelete(df iceberg.DataFile, pos []int64) {
	ctx := context.Background()
	l.rewrites++
	d := l.writePositions(df, df.FilePath(), pos, fmt.Sprint("d", l.rewrites))
	tx := l.load().NewTransaction()
	if err := tx.NewRowDelta(nil).AddDeletes(d).Commit(ctx); err != nil {
		l.t.Fatalf("commit position deletes: %v", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("commit position deletes: %v", err)
	}
}

// rewritePositionDeletes rewrites every live position delete file into
// one new file per data file it references (rewrite_position_delete_files:
// one replace snapshot, the new files keeping the data sequence number of
// those they replace); lose drops one position (a writer's bug).
func (l *lake) rewritePositionDeletes(lose bool) int {
	byData := map[string][]int64{}
	like := map[string]iceberg.DataFile{}
	var old []iceberg.DataFile
	seq := map[string]int64{}
	for _, d := range l.positionDeletes() {
		old = append(old, d.df)
		paths, pos := l.readPositions(d.df)
		for i, p := range paths {
			byData[p] = append(byData[p], pos[i])
			like[p] = d.df
			seq[p] = max(seq[p], d.seq)
		}
	}
	ctx := context.Background()
	tx := l.load().NewTransaction()
	rw := tx.NewRewrite(nil)
	for _, df := range old {
		rw.DeleteFile(df)
	}
	l.rewrites++
	for i, p := range slices.Sorted(maps.Keys(byData)) {
		pos := byData[p]
		slices.Sort(pos)
		if lose && i == 0 {
			pos = pos[1:]
		}
		rw.AddDeleteFileWithDataSequenceNumber(l.writePositions(like[p], p, pos, fmt.Sprint("rw", l.rewrites, "-", i)), seq[p])
	}
	if err := rw.Commit(ctx); err != nil {
		l.t.Fatalf("rewrite position deletes: %v", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("rewrite position deletes: %v", err)
	}
	return len(old)
}

// P11 for delete files: rewrite_position_delete_files (a replace snapshot
// that swaps position delete files for ones deleting the same rows)
// builds nothing: the data files keep their segments and record their new
// fingerprints (Plan.Refresh), both ways (P1); rows stay exact. A rewrite
// that loses a position is rebuilt, and the plan says why.
func TestPlanner_Plan_PositionDeleteRewriteKeepsSegments(t *testing.T) {
	for _, cfg := range []lakeConfig{{version: 2}, {version: 2, keyed: true}} {
		t.Run(cfg.String(), func(t *testing.T) {
			l := newLake(t, cfg)
			p := plan.New(plan.Options{})
			for range 4 {
				l.appendRows(20) // one file each: ids [0,20), [20,40), ...; a row's position is id mod 20
			}
			files := l.dataFiles()
			l.positionDelete(files[0], []int64{3, 4})
			l.positionDelete(files[0], []int64{7})
			l.positionDelete(files[2], []int64{1, 2})
			cp := commit(checkpoint.Checkpoint{}, l.load(), plans(t, p, l.load(), checkpoint.Checkpoint{}), nil)

			if n := l.rewritePositionDeletes(false); n < 3 {
				t.Fatalf("the table had %d position delete files, want at least 3", n)
			}
			got := plans(t, p, l.load(), cp)
			if len(got.Build) != 0 || len(got.Drop) != 0 || got.Replacing || got.RemapFallback != "" {
				t.Fatalf("P11: rewritten position deletes built %v, dropped %v (replacing %v, fallback %q)",
					builtPaths(got), got.Drop, got.Replacing, got.RemapFallback)
			}
			if len(got.Refresh) != 2 {
				t.Fatalf("P11: %d files record a new fingerprint, want the 2 files with deletes", len(got.Refresh))
			}
			for path, fs := range got.Refresh {
				if fs.DeleteFingerprint == cp.Files[path].DeleteFingerprint || !slices.Equal(fs.Segments, cp.Files[path].Segments) {
					t.Fatalf("P11: file %s refreshed as %+v, recorded %+v", path, fs, cp.Files[path])
				}
			}
			cp = commit(cp, l.load(), got, nil)
			checkLive(t, l.load(), cp, got)
			checkRows(t, l.load())
			if again := plans(t, p, l.load(), cp); len(again.Build) != 0 || len(again.Refresh) != 0 {
				t.Fatalf("after the refresh, the next plan builds %v and refreshes %d", builtPaths(again), len(again.Refresh))
			}

			l.rewritePositionDeletes(true)
			lost := plans(t, p, l.load(), cp)
			if len(lost.Build) == 0 || !strings.Contains(lost.RemapFallback, "changed rows") {
				t.Fatalf("P11: a rewrite that lost a position built %v (fallback %q), want a rebuild saying why",
					builtPaths(lost), lost.RemapFallback)
			}
			cp = commit(cp, l.load(), lost, nil)
			checkLive(t, l.load(), cp, lost)
			checkRows(t, l.load())
		})
	}
}
