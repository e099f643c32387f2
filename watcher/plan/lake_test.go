package plan_test

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/internal/lakefixture"
)

// lakeConfig shapes a test table: (id long, p int, v string), optionally
// partitioned by identity(p), optionally keyed (id is the schema's
// identifier field, so the planner records key bounds before the first
// equality delete).
type lakeConfig struct {
	version     int
	partitioned bool
	keyed       bool
}

func (c lakeConfig) String() string {
	s := fmt.Sprintf("v%d", c.version)
	if c.partitioned {
		s += "-partitioned"
	}
	if c.keyed {
		s += "-keyed"
	}
	return s
}

// lake is a real Iceberg table written by iceberg-go in a SQL catalog on
// sqlite. Row ids are unique over the table's life; p = id % parts.
type lake struct {
	t     testing.TB
	cfg   lakeConfig
	dir   string
	db    *sql.DB
	cat   *sqlcat.Catalog
	ident table.Identifier
	next  int64
	// rewrites numbers the position delete files the tests write.
	rewrites int
}

const parts = 3

func newLake(t testing.TB, cfg lakeConfig) *lake {
	t.Helper()
	l := openLake(t, t.TempDir(), "floe")
	l.cfg = cfg
	l.create(cfg)
	return l
}

// openLake opens (and creates when new) the sqlite SQL catalog of dir.
func openLake(t testing.TB, dir, catalogName string) *lake {
	t.Helper()
	l := lakefixture.OpenT(t, lakefixture.Options{Name: catalogName, DBPath: filepath.Join(dir, "cat.db"),
		Warehouse: "file://" + filepath.Join(dir, "wh"), BusyTimeout: 10 * time.Second, OneConn: true})
	return &lake{t: t, dir: dir, db: l.DB, cat: l.Catalog, ident: table.Identifier{"ns", "events"}}
}

func lakeSchema(keyed bool) *iceberg.Schema {
	ids := []int{}
	if keyed {
		ids = []int{1}
	}
	return iceberg.NewSchemaWithIdentifiers(0, ids,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "p", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 3, Name: "v", Type: iceberg.PrimitiveTypes.String})
}

func (l *lake) create(cfg lakeConfig) {
	ctx := context.Background()
	if err := l.cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		l.t.Fatal(err)
	}
	props := iceberg.Properties{"format-version": strconv.Itoa(cfg.version)}
	opts := []catalog.CreateTableOpt{catalog.WithProperties(props)}
	if cfg.partitioned {
		spec := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{2}, FieldID: 1000,
			Transform: iceberg.IdentityTransform{}, Name: "p"})
		opts = append(opts, catalog.WithPartitionSpec(&spec))
	}
	if _, err := l.cat.CreateTable(ctx, l.ident, lakeSchema(cfg.keyed), opts...); err != nil {
		l.t.Fatal(err)
	}
}

func (l *lake) load() *table.Table {
	tbl, err := l.cat.LoadTable(context.Background(), l.ident)
	if err != nil {
		l.t.Fatal(err)
	}
	return tbl
}

// records builds n new rows, ids continuing the table's.
func (l *lake) records(n int) arrow.Table {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = l.next
		l.next++
	}
	rec := l.batch(ids)
	defer rec.Release()
	return array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
}

// batch builds one row per id.
func (l *lake) batch(ids []int64) arrow.RecordBatch {
	sc, err := table.SchemaToArrowSchema(l.load().Schema(), nil, true, false)
	if err != nil {
		l.t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.Int32Builder).Append(int32(id % parts))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprint("v", id, "-", l.next))
	}
	return b.NewRecordBatch()
}

func (l *lake) appendRows(n int) {
	at := l.records(n)
	defer at.Release()
	if _, err := l.load().AppendTable(context.Background(), at, int64(n), nil); err != nil {
		l.t.Fatalf("append: %v", err)
	}
}

// appendIDs appends one data file holding the rows of ids.
func (l *lake) appendIDs(ids []int64) {
	rec := l.batch(ids)
	defer rec.Release()
	at := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := l.load().AppendTable(context.Background(), at, int64(len(ids)), nil); err != nil {
		l.t.Fatalf("append: %v", err)
	}
}

// overwrite replaces the rows matching filter by n new rows
// (copy-on-write).
func (l *lake) overwrite(filter iceberg.BooleanExpression, n int) {
	at := l.records(n)
	defer at.Release()
	if _, err := l.load().OverwriteTable(context.Background(), at, int64(n), nil, table.WithOverwriteFilter(filter)); err != nil {
		l.t.Fatalf("overwrite %v: %v", filter, err)
	}
}

// deleteRows deletes the rows matching filter in mode "copy-on-write" or
// "merge-on-read" (position deletes in v2, deletion vectors in v3).
func (l *lake) deleteRows(filter iceberg.BooleanExpression, mode string) {
	ctx := context.Background()
	tx := l.load().NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{table.WriteDeleteModeKey: mode}); err != nil {
		l.t.Fatal(err)
	}
	if err := tx.Delete(ctx, filter, nil); err != nil {
		l.t.Fatalf("delete %v (%s): %v", filter, mode, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("delete %v (%s): %v", filter, mode, err)
	}
}

// eqDelete commits an equality delete file (key: id) holding ids.
func (l *lake) eqDelete(ids []int64) { l.rowDelta(ids, false) }

// upsert commits, in one snapshot, an equality delete of ids and new rows
// with the same ids (a CDC upsert): the new rows share the delete's
// sequence number, so it does not apply to them.
func (l *lake) upsert(ids []int64) { l.rowDelta(ids, true) }

func (l *lake) rowDelta(ids []int64, reinsert bool) {
	ctx := context.Background()
	tbl := l.load()
	tx := tbl.NewTransaction()
	var added []iceberg.DataFile
	if reinsert {
		rec := l.batch(ids)
		var records iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
		for df, err := range table.WriteRecords(ctx, tbl, rec.Schema(), records) {
			if err != nil {
				l.t.Fatalf("write upserted rows: %v", err)
			}
			added = append(added, df)
		}
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})},
		{Name: "p", Type: arrow.PrimitiveTypes.Int32, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"2"})},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.Int32Builder).Append(int32(id % parts))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var records iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	files, err := tx.WriteEqualityDeletes(ctx, []int{1}, records)
	if err != nil {
		l.t.Fatalf("write equality deletes: %v", err)
	}
	if err := tx.NewRowDelta(nil).AddRows(added...).AddDeletes(files...).Commit(ctx); err != nil {
		l.t.Fatalf("commit equality deletes: %v", err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("commit equality deletes: %v", err)
	}
}

// compactMode is how compact rewrites a partition's files.
type compactMode int

const (
	binPack    compactMode = iota // iceberg-go's RewriteDataFiles: the files into one (deletes applied)
	sortLike                      // the rows into several new files (many → many)
	concurrent                    // like sortLike, an equality delete committed meanwhile, the old data seq kept
	mislabel                      // a "replace" that loses a row (a writer's bug)
)

func (m compactMode) String() string {
	return [...]string{"compact", "compact-sort", "compact-concurrent-eq", "compact-mislabelled"}[m]
}

// compact rewrites the live files of one partition of the current spec
// (or of the table when unpartitioned) into new files, applying their
// deletes, as one replace snapshot. (iceberg-go's compaction writes the
// current spec with a clustered writer, which files of an older spec
// would not suit.)
func (l *lake) compact(rng *rand.Rand, mode compactMode) bool {
	ctx := context.Background()
	tbl := l.load()
	g, ok := l.compactionGroup(rng, tbl)
	if !ok {
		return false
	}
	if mode == binPack {
		if _, err := tbl.RewriteDataFiles(ctx, []table.CompactionTaskGroup{g}, table.RewriteDataFilesOptions{}); err != nil {
			l.t.Fatalf("compact %s: %v", g.PartitionKey, err)
		}
		return true
	}
	gr := l.rewriteGroup(tbl, g, mode == mislabel)
	startSeq := tbl.CurrentSnapshot().SequenceNumber
	if mode == concurrent && l.cfg.version >= 2 {
		// The delete commits while the compaction runs; the compaction
		// keeps the sequence number it started from
		// (use-starting-sequence-number), so the delete still applies
		// to the rewritten rows.
		l.eqDelete([]int64{rng.Int64N(l.next), rng.Int64N(l.next)})
	}
	if mode != concurrent {
		startSeq = -1
	}
	l.commitRewrite(gr, startSeq)
	return true
}

// commitRewrite commits a rewritten group as a replace snapshot; with
// seq ≥ 0 its new files keep that data sequence number.
func (l *lake) commitRewrite(gr table.CompactionGroupResult, seq int64) {
	ctx := context.Background()
	tx := l.load().NewTransaction()
	rw := tx.NewRewrite(nil).ApplyResult(gr)
	if seq >= 0 {
		rw.DataSequenceNumber(seq)
	}
	if err := rw.Commit(ctx); err != nil {
		l.t.Fatalf("rewrite %s: %v", gr.PartitionKey, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		l.t.Fatalf("rewrite %s: %v", gr.PartitionKey, err)
	}
}

// compactionGroup picks the live files of a random partition of the
// current spec.
func (l *lake) compactionGroup(rng *rand.Rand, tbl *table.Table) (table.CompactionTaskGroup, bool) {
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		l.t.Fatal(err)
	}
	spec := tbl.Spec()
	groups := map[string][]table.FileScanTask{}
	for _, tk := range tasks {
		if int(tk.File.SpecID()) != spec.ID() {
			continue
		}
		key := fmt.Sprint(tk.File.SpecID(), tk.File.Partition())
		groups[key] = append(groups[key], tk)
	}
	if len(groups) == 0 {
		return table.CompactionTaskGroup{}, false
	}
	keys := slices.Sorted(maps.Keys(groups))
	key := keys[rng.IntN(len(keys))]
	g := table.CompactionTaskGroup{PartitionKey: key, Tasks: groups[key]}
	for _, tk := range g.Tasks {
		g.TotalSizeBytes += tk.File.FileSizeBytes()
	}
	return g, true
}

// rewriteGroup reads a group's rows with their deletes applied and writes
// them again, the record batches dealt round-robin into up to three new
// files (a sort's reshuffle); lose drops the first row.
func (l *lake) rewriteGroup(tbl *table.Table, g table.CompactionTaskGroup, lose bool) table.CompactionGroupResult {
	ctx := context.Background()
	sc, batches, err := tbl.Scan().ReadTasks(ctx, g.Tasks)
	if err != nil {
		l.t.Fatal(err)
	}
	chunks := make([][]arrow.RecordBatch, 3)
	n := 0
	for b, err := range batches {
		if err != nil {
			l.t.Fatal(err)
		}
		if lose && n == 0 && b.NumRows() > 0 {
			cut := b.NewSlice(1, b.NumRows())
			b.Release()
			b = cut
		}
		chunks[n%len(chunks)] = append(chunks[n%len(chunks)], b)
		n++
	}
	gr := table.CompactionGroupResult{PartitionKey: g.PartitionKey, SafePosDeletes: table.CollectSafePositionDeletes(g.Tasks),
		SafeDeletionVectors: table.CollectSafeDeletionVectors(g.Tasks)}
	for _, tk := range g.Tasks {
		gr.OldDataFiles = append(gr.OldDataFiles, tk.File)
	}
	for i := len(chunks) - 1; i >= 0; i-- {
		if len(chunks[i]) == 0 {
			continue
		}
		recs := slices.Values(chunks[i])
		var records iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) {
			for b := range recs {
				if !yield(b, nil) {
					return
				}
			}
		}
		for df, err := range table.WriteRecords(ctx, tbl, sc, records, table.WithClusteredWrite()) {
			if err != nil {
				l.t.Fatalf("rewrite %s: %v", g.PartitionKey, err)
			}
			gr.NewDataFiles = append(gr.NewDataFiles, df)
		}
		for _, b := range chunks[i] {
			b.Release()
		}
	}
	return gr
}

// rollback moves the table back to a random earlier ancestor.
func (l *lake) rollback(rng *rand.Rand) bool {
	tbl := l.load()
	cur := tbl.CurrentSnapshot()
	if cur == nil {
		return false
	}
	anc := table.AncestorsOf(cur.SnapshotID, tbl.Metadata().SnapshotByID)
	if len(anc) < 2 {
		return false
	}
	to := anc[1+rng.IntN(min(len(anc)-1, 4))]
	tx := tbl.NewTransaction()
	if err := tx.RollbackToSnapshot(to.SnapshotID); err != nil {
		l.t.Fatalf("rollback to %d: %v", to.SnapshotID, err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		l.t.Fatalf("rollback to %d: %v", to.SnapshotID, err)
	}
	return true
}

// expire keeps only the last few snapshots.
func (l *lake) expire(rng *rand.Rand) {
	tx := l.load().NewTransaction()
	// Files stay: iceberg-go v0.7.0's post-commit cleanup fails removing
	// some files twice.
	err := tx.ExpireSnapshots(table.WithRetainLast(1+rng.IntN(3)), table.WithOlderThan(0), table.WithPostCommit(false))
	if err != nil {
		l.t.Fatalf("expire: %v", err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		l.t.Fatalf("expire: %v", err)
	}
}

// evolve adds a bucket(id) partition field to the table's spec, or
// removes it again: later files are written under a new spec.
func (l *lake) evolve() string {
	tbl := l.load()
	tx := tbl.NewTransaction()
	us := tx.UpdateSpec(true)
	op := "add-bucket"
	spec := tbl.Spec()
	for _, f := range spec.Fields() {
		if f.Name == "b" {
			op = "remove-bucket"
		}
	}
	if op == "add-bucket" {
		us.AddField("id", iceberg.BucketTransform{NumBuckets: 2}, "b")
	} else {
		us.RemoveField("b")
	}
	if err := us.Commit(); err != nil {
		l.t.Fatalf("evolve spec (%s): %v", op, err)
	}
	if _, err := tx.Commit(context.Background()); err != nil {
		l.t.Fatalf("evolve spec (%s): %v", op, err)
	}
	return op
}

// idRange matches ids in [lo, hi).
func idRange(lo, hi int64) iceberg.BooleanExpression {
	return iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), hi))
}
