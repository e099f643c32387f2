package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/segments"
	floearrow "github.com/floehq/floe/segments/arrow"
	floeparquet "github.com/floehq/floe/segments/parquet"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// benchTable is the Iceberg table that holds the benchmark file.
var benchTable = table.Identifier{"bench", "events"}

// openLake opens the SQL catalog (sqlite) under dir.
func openLake(dir string) (*sql.DB, *sqlcat.Catalog, error) {
	wh, err := filepath.Abs(filepath.Join(dir, "warehouse"))
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(wh, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create warehouse: %w", err)
	}
	lake, err := lakefixture.Open(lakefixture.Options{Name: "bench", DBPath: filepath.Join(dir, "catalog.db"), Warehouse: "file://" + wh})
	if err != nil {
		return nil, nil, fmt.Errorf("open bench catalog: %w", err)
	}
	return lake.DB, lake.Catalog, nil
}

// ensureLake makes an Iceberg table (SQL catalog under dir) whose one data
// file is the benchmark Parquet file itself, added in place, so the sync
// path reads exactly the bytes floe convert reads.
func ensureLake(ctx context.Context, dir, parquetFile string) error {
	return ensureLakeWith(ctx, dir, parquetFile, nil, nil)
}

// ensureLakeWith is ensureLake with the table's properties and, when then
// is set, a change committed after the file is added.
func ensureLakeWith(ctx context.Context, dir, parquetFile string, props iceberg.Properties, then func(*table.Table) error) error {
	db, cat, err := openLake(dir)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := cat.LoadTable(ctx, benchTable); err == nil {
		return nil
	} else if !errors.Is(err, icecatalog.ErrNoSuchTable) {
		return fmt.Errorf("load bench table: %w", err)
	}
	sc, err := icebergSchemaOf(parquetFile)
	if err != nil {
		return err
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil && !errors.Is(err, icecatalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("create bench namespace: %w", err)
	}
	tbl, err := cat.CreateTable(ctx, benchTable, sc, icecatalog.WithProperties(props))
	if err != nil {
		return fmt.Errorf("create bench table: %w", err)
	}
	abs, err := filepath.Abs(parquetFile)
	if err != nil {
		return err
	}
	tx := tbl.NewTransaction()
	if err := tx.AddFiles(ctx, []string{"file://" + abs}, nil, false); err != nil {
		return fmt.Errorf("add the bench file to the table: %w", err)
	}
	if tbl, err = tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit bench table: %w", err)
	}
	if then != nil {
		return then(tbl)
	}
	return nil
}

// icebergSchemaOf derives the table schema from the Parquet file's columns.
func icebergSchemaOf(path string) (*iceberg.Schema, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer pf.Close()
	as, err := pqarrow.FromParquet(pf.MetaData().Schema, &pqarrow.ArrowReadProperties{}, pf.MetaData().KeyValueMetadata())
	if err != nil {
		return nil, fmt.Errorf("read %s schema: %w", path, err)
	}
	return table.ArrowSchemaToIcebergWithFreshIDs(as, false)
}

// cmdSync does what a floe sync does with one data file: an iceberg-go
// Arrow scan (the same ReadTasks call as the watcher's IcebergBuilder) into
// the Arrow source, the segment builder and the tarball. With -decode-only
// it drains the scan and builds nothing.
func cmdSync(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lake := fs.String("lake", "", "directory of the bench catalog")
	out := fs.String("o", "", "output directory")
	decodeOnly := fs.Bool("decode-only", false, "drain the Arrow scan, build nothing")
	batch := fs.Int("batch", 0, "Arrow batch size of the scan (0: iceberg-go's), as the watcher's IcebergBuilder.BatchRows")
	reader := fs.String("reader", "arrow", "arrow: iceberg-go's Arrow scan; parquet: floe's Parquet source on the planned data file (a file without deletes); watcher: the watcher's planner and IcebergBuilder, as a run does")
	scanDeletes := fs.Bool("scan-deletes", false, "with -reader watcher: iceberg-go's scan applies the data file's deletes (IcebergBuilder.ScanDeletes), not floe")
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, cat, err := openLake(*lake)
	if err != nil {
		return err
	}
	defer db.Close()
	tbl, err := cat.LoadTable(ctx, benchTable)
	if err != nil {
		return fmt.Errorf("sync: load bench table: %w", err)
	}
	if *reader == "watcher" {
		return watcherBuild(ctx, tbl, watcher.IcebergBuilder{ScanDeletes: *scanDeletes}, *out, stdout)
	}
	var opts []table.ScanOption
	if *batch > 0 {
		opts = append(opts, table.WithArrowBatchSize(*batch))
	}
	scan := tbl.Scan(opts...)
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		return fmt.Errorf("sync: plan files: %w", err)
	}
	var schema spec.Schema
	if err := json.Unmarshal([]byte(benchSchema), &schema); err != nil {
		return fmt.Errorf("sync: parse schema: %w", err)
	}
	src, err := openTasks(ctx, scan, tasks, &schema, *reader)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	defer src.Close()
	if *decodeOnly {
		return drain(ctx, src, stdout)
	}
	return buildTarball(ctx, src, &schema, *out, stdout)
}

// openTasks reads the planned tasks through iceberg-go's Arrow scan (what
// the watcher does today) or, for one delete-free task, through floe's
// Parquet source on the data file itself, columns matched by name as the
// table's name mapping says (field ids when the file has them).
func openTasks(ctx context.Context, scan *table.Scan, tasks []table.FileScanTask, schema *spec.Schema, reader string) (segments.Source, error) {
	switch reader {
	case "arrow":
		arrowSchema, batches, err := scan.ReadTasks(ctx, tasks)
		if err != nil {
			return nil, fmt.Errorf("read data file: %w", err)
		}
		return floearrow.NewSource(arrowSchema, batches, floearrow.Config{Schema: schema, Name: "bench"})
	case "parquet":
		for _, t := range tasks {
			if t.File.FilePath() != tasks[0].File.FilePath() || len(t.DeleteFiles) > 0 {
				return nil, errors.New("the parquet reader takes one data file without deletes")
			}
		}
		path := strings.TrimPrefix(tasks[0].File.FilePath(), "file://")
		return floeparquet.OpenFile(ctx, path, floeparquet.Config{Schema: schema})
	}
	return nil, fmt.Errorf("unknown -reader %q", reader)
}

// drain reads every batch of src and prints the row count.
func drain(ctx context.Context, src segments.Source, stdout io.Writer) error {
	rows := 0
	for {
		b, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		rows += b.Rows
	}
	fmt.Fprintf(stdout, "%d\n", rows)
	return nil
}

// buildTarball builds the segment, packs its tarball and removes the
// directory, as a sync does before the upload.
func buildTarball(ctx context.Context, src segments.Source, schema *spec.Schema, out string, stdout io.Writer) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	res, err := segments.Build(ctx, src, segments.Config{Schema: schema, TableName: "bench", SegmentName: "bench_sync",
		TimeColumn: "ts", CreationTime: time.Now()}, out)
	if err != nil {
		return fmt.Errorf("sync: build: %w", err)
	}
	f, err := os.Create(filepath.Join(out, res.Name+".tar.gz"))
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err := segments.WriteTarGz(ctx, res.Dir, f); err != nil {
		f.Close()
		return fmt.Errorf("sync: tarball: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sync: tarball: %w", err)
	}
	fmt.Fprintf(stdout, "%d\n", res.Rows)
	return os.RemoveAll(res.Dir)
}

// watcherBuild plans the table and builds its one unit with the watcher's
// IcebergBuilder into a tarball: the reading and building a run does, its
// reader chosen as a run chooses it (the bench file has no field ids, so
// its columns bind through the table's name mapping).
func watcherBuild(ctx context.Context, tbl *table.Table, b watcher.IcebergBuilder, out string, stdout io.Writer) error {
	p, err := plan.New(plan.Options{}).Plan(ctx, "bench", tbl, checkpoint.Checkpoint{})
	if err != nil {
		return fmt.Errorf("sync: plan: %w", err)
	}
	if len(p.Build) != 1 {
		return fmt.Errorf("sync: plan has %d units, want 1", len(p.Build))
	}
	var sc spec.Schema
	if err := json.Unmarshal([]byte(benchSchema), &sc); err != nil {
		return fmt.Errorf("sync: parse schema: %w", err)
	}
	var tc spec.TableConfig
	if err := json.Unmarshal([]byte(benchTableConfig), &tc); err != nil {
		return fmt.Errorf("sync: parse table config: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	res, err := b.Build(ctx, watcher.BuildRequest{Table: checkpoint.Table{Name: "bench"},
		Schema: &sc, TableConfig: &tc, Source: tbl, SnapshotID: p.SnapshotID, Unit: p.Build[0], OutDir: out})
	if err != nil {
		return fmt.Errorf("sync: build: %w", err)
	}
	rows := int64(0)
	for _, n := range res.FileRows {
		rows += n
	}
	fmt.Fprintf(stdout, "%d\n", rows)
	return nil
}
