package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/internal/lakefixture"
)

// demoLake is the demo's Iceberg side: a SQL catalog on sqlite with a
// local warehouse, holding demo.events.
type demoLake struct {
	db    *sql.DB
	cat   *sqlcat.Catalog
	ident table.Identifier
	rng   *rand.Rand
	next  int64
	// metadata is the metadata file of the last append.
	metadata string
}

const demoCatalogName = "demo"

// openDemoLake opens (creating when missing) the catalog under dir and the
// demo.events table.
func openDemoLake(ctx context.Context, dir string) (*demoLake, error) {
	wh, err := filepath.Abs(filepath.Join(dir, "warehouse"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(wh, 0o755); err != nil {
		return nil, fmt.Errorf("create warehouse: %w", err)
	}
	// The watcher reads this catalog through its own connection while the
	// demo commits: wait for the other side's lock rather than fail.
	lake, err := lakefixture.Open(lakefixture.Options{Name: demoCatalogName, DBPath: filepath.Join(dir, "catalog.db"),
		Warehouse: "file://" + wh, BusyTimeout: 10 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("open demo catalog: %w", err)
	}
	l := &demoLake{db: lake.DB, cat: lake.Catalog, ident: table.Identifier{"demo", "events"}, rng: rand.New(rand.NewPCG(1, 2))}
	if err := l.ensureTable(ctx); err != nil {
		lake.DB.Close()
		return nil, err
	}
	return l, nil
}

func demoIcebergSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
		iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "amount", Type: iceberg.PrimitiveTypes.Float64},
	)
}

func (l *demoLake) ensureTable(ctx context.Context) error {
	ns := table.Identifier{"demo"}
	exists, err := l.cat.CheckNamespaceExists(ctx, ns)
	if err != nil {
		return fmt.Errorf("check demo namespace: %w", err)
	}
	if !exists {
		if err := l.cat.CreateNamespace(ctx, ns, nil); err != nil {
			return fmt.Errorf("create demo namespace: %w", err)
		}
	}
	tbl, err := l.cat.LoadTable(ctx, l.ident)
	if errors.Is(err, icecatalog.ErrNoSuchTable) {
		tbl, err = l.cat.CreateTable(ctx, l.ident, demoIcebergSchema())
	}
	if err != nil {
		return fmt.Errorf("open demo.events: %w", err)
	}
	if s := tbl.CurrentSnapshot(); s != nil {
		if v, ok := s.Summary.Properties["total-records"]; ok {
			fmt.Sscan(v, &l.next)
		}
	}
	return nil
}

var demoCities = []string{"Amsterdam", "Berlin", "Lisbon", "Oslo", "Paris", "Tallinn", "Vienna", "Zürich"}

// appendRows commits one append snapshot of n generated rows.
func (l *demoLake) appendRows(ctx context.Context, n int) (int64, error) {
	tbl, err := l.cat.LoadTable(ctx, l.ident)
	if err != nil {
		return 0, fmt.Errorf("load demo.events: %w", err)
	}
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return 0, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	now := time.Now().UTC()
	for i := 0; i < n; i++ {
		id := l.next + int64(i)
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(now.Add(-time.Duration(l.rng.IntN(3600)) * time.Second).UnixMicro()))
		if id%17 == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(demoCities[l.rng.IntN(len(demoCities))])
		}
		b.Field(3).(*array.Float64Builder).Append(float64(l.rng.IntN(100000)) / 100)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer at.Release()
	tbl, err = tbl.AppendTable(ctx, at, int64(n), nil)
	if err != nil {
		return 0, fmt.Errorf("append to demo.events: %w", err)
	}
	l.next += int64(n)
	l.metadata = tbl.MetadataLocation()
	return tbl.CurrentSnapshot().SnapshotID, nil
}

func (l *demoLake) Close() error { return l.db.Close() }
