package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/apache/iceberg-go/table"
)

// Catalog is an open, read-only catalog connection. Every method is safe
// for concurrent use.
type Catalog interface {
	// ListNamespaces lists the namespaces under parent (nil: top level).
	ListNamespaces(ctx context.Context, parent []string, page PageRequest) (Page[Namespace], error)
	// ListTables lists the tables of a namespace.
	ListTables(ctx context.Context, namespace []string, page PageRequest) (Page[TableIdent], error)
	// LoadTable loads a table for the watcher, with a FileIO ready for scans.
	LoadTable(ctx context.Context, ident TableIdent) (*Table, error)
	// Describe summarises a table: schema, snapshots, format, partitioning.
	Describe(ctx context.Context, ident TableIdent) (TableInfo, error)
	// Validate proves the connection works, step by step.
	Validate(ctx context.Context) Report
	// Close releases the connection.
	Close() error
}

// Namespace is a namespace path, e.g. ["sales", "eu"].
type Namespace []string

// String joins the levels with ".".
func (n Namespace) String() string { return strings.Join(n, ".") }

// TableIdent names a table in a catalog.
type TableIdent struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// String formats the identifier as ns1.ns2.table.
func (t TableIdent) String() string {
	return strings.Join(append(append([]string(nil), t.Namespace...), t.Name), ".")
}

func (t TableIdent) iceberg() table.Identifier {
	return append(append(table.Identifier(nil), t.Namespace...), t.Name)
}

func (t TableIdent) check() error {
	if len(t.Namespace) == 0 || t.Name == "" {
		return fmt.Errorf("%w: table identifier %q needs a namespace and a name", ErrInvalidConfig, t.String())
	}
	return nil
}

// Table is a loaded Iceberg table. Iceberg's FileIO already carries the
// connection's data credentials and endpoints, so Iceberg.Scan works with
// any context.
type Table struct {
	Ident            TableIdent
	MetadataLocation string
	UUID             string
	Iceberg          *table.Table
}

// Snapshots returns the table's snapshots in metadata order.
func (t *Table) Snapshots() []table.Snapshot { return t.Iceberg.Metadata().Snapshots() }

// CurrentSnapshot returns the current snapshot, or nil for an empty table.
func (t *Table) CurrentSnapshot() *table.Snapshot { return t.Iceberg.CurrentSnapshot() }

// Open connects to the catalog cfg describes. It validates cfg first and
// performs the cheap calls needed to set up the connection (REST config,
// SQL schema probe); use Catalog.Validate for a full check.
func Open(ctx context.Context, cfg Config, logger *slog.Logger) (Catalog, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if f := cfg.unresolvedRef(); f != "" {
		return nil, &FieldError{Field: f, Msg: "secret reference not resolved (Policy.Resolve reads it before Open)"}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With(slog.String("connection", cfg.Name), slog.String("catalog_type", cfg.Type))
	if def, ok := lookupType(cfg.Type); ok {
		return def.open(ctx, cfg, logger)
	}
	return nil, fmt.Errorf("open catalog %s: %w: unknown type %q", cfg.Name, ErrInvalidConfig, cfg.Type)
}
