package catalog

import (
	"context"
	"time"

	"github.com/floehq/floe/catalog/awsaccess"
)

// pointerCatalog reads a catalog that keeps, for each table, a pointer to
// the table's current metadata file: AWS Glue (the metadata_location table
// parameter) and the native S3 Tables API (GetTableMetadataLocation). The
// service lists namespaces and tables and locates the pointer; the
// metadata file is then read with the connection's data access, like any
// Iceberg table's.
type pointerCatalog struct {
	cfg      Config
	src      pointerSource
	data     *dataAccess
	access   awsaccess.Access // names missing permissions in validate
	resource string           // the catalog, for validate's report
	timeout  time.Duration
	identity identityCheck
}

// pointerSource is the service behind a pointerCatalog. Its errors are
// already *Error values naming the resource and the permission.
type pointerSource interface {
	// listNamespaces lists the top-level namespaces (pointer catalogs have
	// one level).
	listNamespaces(ctx context.Context, page PageRequest) (Page[Namespace], error)
	// listTables lists the Iceberg tables of a namespace.
	listTables(ctx context.Context, namespace []string, page PageRequest) (Page[TableIdent], error)
	// locate returns the location of the table's current metadata file.
	locate(ctx context.Context, ident TableIdent) (string, error)
}

var _ Catalog = (*pointerCatalog)(nil)

func (p *pointerCatalog) ListNamespaces(ctx context.Context, parent []string, page PageRequest) (Page[Namespace], error) {
	if len(parent) > 0 { // one level of namespaces
		return Page[Namespace]{Items: []Namespace{}}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.src.listNamespaces(ctx, page)
}

func (p *pointerCatalog) ListTables(ctx context.Context, namespace []string, page PageRequest) (Page[TableIdent], error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.src.listTables(ctx, namespace, page)
}

// LoadTable locates the table's metadata pointer and reads the metadata
// file it names.
func (p *pointerCatalog) LoadTable(ctx context.Context, ident TableIdent) (*Table, error) {
	if err := ident.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	loc, err := p.src.locate(ctx, ident)
	if err != nil {
		return nil, err
	}
	tbl, err := p.data.loadFromLocation(ctx, ident, loc)
	if err != nil {
		return nil, err
	}
	return p.cfg.newTable(ident, tbl), nil
}

func (p *pointerCatalog) Describe(ctx context.Context, ident TableIdent) (TableInfo, error) {
	t, err := p.LoadTable(ctx, ident)
	if err != nil {
		return TableInfo{}, err
	}
	return t.Info(), nil
}

func (p *pointerCatalog) Validate(ctx context.Context) Report {
	return validate(ctx, p, p.access, p.resource, p.identity)
}

func (p *pointerCatalog) Close() error { return nil }
