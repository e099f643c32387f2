package lakefixture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// Options says where the lake is and how its sqlite file is shared.
type Options struct {
	// Name is the catalog's name (the catalog_name column).
	Name string
	// DBPath is the sqlite file (created when missing).
	DBPath string
	// Warehouse is the warehouse URL, e.g. file:///tmp/lake/wh or s3://bucket/wh.
	Warehouse string
	// Props are more catalog props, e.g. the s3.* FileIO props of an S3
	// warehouse.
	Props iceberg.Properties
	// BusyTimeout makes a connection wait that long for another one's lock
	// (another process or floe's own reader) instead of failing at once.
	BusyTimeout time.Duration
	// WAL puts the sqlite file in write-ahead-log mode.
	WAL bool
	// OneConn keeps one open connection, shared by every goroutine.
	OneConn bool
}

// Lake is an open SQL catalog on sqlite.
type Lake struct {
	DB        *sql.DB
	Catalog   *sqlcat.Catalog
	DBPath    string
	Warehouse string
}

// dsn is the sqlite data source name with the options' pragmas.
func (o Options) dsn() string {
	dsn, sep := o.DBPath, "?"
	if o.BusyTimeout > 0 {
		dsn += fmt.Sprintf("%s_pragma=busy_timeout(%d)", sep, o.BusyTimeout.Milliseconds())
		sep = "&"
	}
	if o.WAL {
		dsn += sep + "_pragma=journal_mode(WAL)"
	}
	return dsn
}

// Open opens (creating when missing) the SQL catalog o describes.
func Open(o Options) (*Lake, error) {
	if o.Name == "" || o.DBPath == "" || o.Warehouse == "" {
		return nil, errors.New("open lake: Options needs Name, DBPath and Warehouse")
	}
	db, err := sql.Open("sqlite", o.dsn())
	if err != nil {
		return nil, fmt.Errorf("open lake catalog %s: %w", o.DBPath, err)
	}
	if o.OneConn {
		db.SetMaxOpenConns(1)
	}
	props := iceberg.Properties{"warehouse": o.Warehouse}
	maps.Copy(props, o.Props)
	cat, err := sqlcat.NewCatalog(o.Name, db, sqlcat.SQLite, props)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open lake catalog %s: %w", o.DBPath, err)
	}
	return &Lake{DB: db, Catalog: cat, DBPath: o.DBPath, Warehouse: o.Warehouse}, nil
}

// TB is the part of testing.TB OpenT uses (so this package does not link
// package testing into the programs that use it).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// OpenT opens the lake for a test or benchmark: a failure ends it, and the
// lake is closed when it ends.
func OpenT(t TB, o Options) *Lake {
	t.Helper()
	l, err := Open(o)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// Close closes the catalog and its database.
func (l *Lake) Close() error {
	return errors.Join(l.Catalog.Close(), l.DB.Close())
}

// EnsureNamespace creates the namespace unless it exists.
func (l *Lake) EnsureNamespace(ctx context.Context, ns table.Identifier) error {
	exists, err := l.Catalog.CheckNamespaceExists(ctx, ns)
	if err != nil {
		return fmt.Errorf("check namespace %v: %w", ns, err)
	}
	if exists {
		return nil
	}
	if err := l.Catalog.CreateNamespace(ctx, ns, nil); err != nil {
		return fmt.Errorf("create namespace %v: %w", ns, err)
	}
	return nil
}
