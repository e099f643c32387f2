// Package lake builds the Iceberg tables floe's benchmarks sync: an
// iceberg-go table in a sqlite SQL catalog whose data files are copies of
// one Parquet file, added many per commit, so tables of thousands of files
// build in seconds.
package lake

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// CatalogName is the SQL catalog's name (floe's connection names it).
const CatalogName = "bench"

// Lake is an iceberg-go table (bench.events: id long, v string) in a
// sqlite SQL catalog whose data files are copies of one Parquet file.
type Lake struct {
	// DB is the sqlite catalog file; Files the data files added so far.
	DB       string
	Files    int
	lake     *lakefixture.Lake
	cat      *sqlcat.Catalog
	ident    table.Identifier
	template string // a data file written by iceberg-go
	dataDir  string
	rows     int
	perFile  *perFile // set by BuildManifestPerFile
}

// Build makes a table of files data files of rows rows each under
// root/<files>, added perBatch per commit.
func Build(ctx context.Context, root string, files, perBatch, rows int) (*Lake, error) {
	l, err := open(ctx, root, files, rows)
	if err != nil {
		return nil, err
	}
	for l.Files < files {
		n := min(perBatch, files-l.Files)
		if err := l.AddFiles(ctx, n); err != nil {
			return nil, l.fail(err)
		}
	}
	return l, nil
}

// open makes the catalog under root/<files> and the table with its
// template file (one data file).
func open(ctx context.Context, root string, files, rows int) (*Lake, error) {
	dir, err := filepath.Abs(filepath.Join(root, fmt.Sprint(files)))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	lake, err := lakefixture.Open(lakefixture.Options{Name: CatalogName, DBPath: filepath.Join(dir, "cat.db"),
		Warehouse: "file://" + filepath.Join(dir, "wh"), BusyTimeout: 10 * time.Second, OneConn: true})
	if err != nil {
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	l := &Lake{DB: lake.DBPath, lake: lake, cat: lake.Catalog, ident: table.Identifier{"bench", "events"}, dataDir: filepath.Join(dir, "files"), rows: rows}
	if err := l.create(ctx); err != nil {
		return nil, l.fail(err)
	}
	if err := os.MkdirAll(l.dataDir, 0o755); err != nil {
		return nil, l.fail(err)
	}
	return l, nil
}

func (l *Lake) fail(err error) error {
	l.Close()
	return err
}

// Close closes the catalog.
func (l *Lake) Close() { l.lake.DB.Close() }

// create makes the table with one appended file, the template every
// other data file copies.
func (l *Lake) create(ctx context.Context) error {
	if err := l.cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.PrimitiveTypes.String})
	tbl, err := l.cat.CreateTable(ctx, l.ident, sc, catalog.WithProperties(iceberg.Properties{"format-version": "2"}))
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	asc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, asc)
	defer b.Release()
	for i := 0; i < l.rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(asc, []arrow.RecordBatch{rec})
	defer at.Release()
	if tbl, err = tbl.AppendTable(ctx, at, int64(l.rows), nil); err != nil {
		return fmt.Errorf("append template file: %w", err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil || len(tasks) != 1 {
		return fmt.Errorf("find template file: %d tasks, %v", len(tasks), err)
	}
	l.template = strings.TrimPrefix(tasks[0].File.FilePath(), "file://")
	l.Files = 1
	return nil
}

// AddFiles copies the template n times and adds the copies in one commit
// (in a table built by BuildManifestPerFile: n commits of one manifest
// each).
func (l *Lake) AddFiles(ctx context.Context, n int) error {
	if l.perFile != nil {
		return l.appendEach(ctx, n)
	}
	paths := make([]string, n)
	for i := range paths {
		p := filepath.Join(l.dataDir, fmt.Sprintf("f%06d.parquet", l.Files+i))
		if err := copyFile(l.template, p); err != nil {
			return err
		}
		paths[i] = "file://" + p
	}
	tbl, err := l.Load(ctx)
	if err != nil {
		return err
	}
	tx := tbl.NewTransaction()
	if err := tx.AddFiles(ctx, paths, nil, false); err != nil {
		return fmt.Errorf("add %d files: %w", n, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit %d files: %w", n, err)
	}
	l.Files += n
	return nil
}

// Load loads the table.
func (l *Lake) Load(ctx context.Context) (*table.Table, error) {
	tbl, err := l.cat.LoadTable(ctx, l.ident)
	if err != nil {
		return nil, fmt.Errorf("load table: %w", err)
	}
	return tbl, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", to, err)
	}
	return out.Close()
}
