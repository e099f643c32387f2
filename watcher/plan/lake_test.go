package plan_test

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "modernc.org/sqlite"
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
	db, err := sql.Open("sqlite", filepath.Join(dir, "cat.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	cat, err := sqlcat.NewCatalog(catalogName, db, sqlcat.SQLite, iceberg.Properties{"warehouse": "file://" + filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	return &lake{t: t, dir: dir, db: db, cat: cat, ident: table.Identifier{"ns", "events"}}
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

// compact rewrites the live files of one partition of the current spec
// (or of the table when unpartitioned) into new files, applying their
// deletes. (iceberg-go's compaction writes the current spec with a
// clustered writer, which files of an older spec would not suit.)
func (l *lake) compact(rng *rand.Rand) bool {
	ctx := context.Background()
	tbl := l.load()
	tasks, err := tbl.Scan().PlanFiles(ctx)
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
		return false
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range groups {
			if !yield(k) {
				return
			}
		}
	})
	key := keys[rng.IntN(len(keys))]
	g := table.CompactionTaskGroup{PartitionKey: key, Tasks: groups[key]}
	for _, tk := range g.Tasks {
		g.TotalSizeBytes += tk.File.FileSizeBytes()
	}
	if _, err := tbl.RewriteDataFiles(ctx, []table.CompactionTaskGroup{g}, table.RewriteDataFilesOptions{}); err != nil {
		l.t.Fatalf("compact %s: %v", key, err)
	}
	return true
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
