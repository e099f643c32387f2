package catalog

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/floehq/floe/catalog/awsaccess"
)

// icebergCatalog adapts an iceberg-go catalog (sql, rest, hadoop, glue
// rest) to Catalog, read-only.
type icebergCatalog struct {
	cfg      Config
	cat      icecatalog.Catalog
	logger   *slog.Logger
	resource string           // catalog URI / warehouse / ARN, for errors
	data     *dataAccess      // nil: keep the FileIO of the iceberg-go catalog
	access   awsaccess.Access // names missing permissions in errors
	timeout  time.Duration
	closers  []func() error
	identity identityCheck // nil when there are no AWS credentials to check
	// fileAWS, when set, is put in the context of every call and of every
	// read of a loaded table's files, so that the S3 FileIO iceberg-go
	// builds from the catalog's props (REST, Hadoop) uses floe's HTTP
	// client, under the egress policy (fileio.go, policedFiles).
	fileAWS *aws.Config
}

var _ Catalog = (*icebergCatalog)(nil)

func (c *icebergCatalog) ListNamespaces(ctx context.Context, parent []string, page PageRequest) (Page[Namespace], error) {
	ctx = withAWS(ctx, c.fileAWS)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	ids, err := c.cat.ListNamespaces(ctx, parent)
	if err != nil {
		return Page[Namespace]{}, wrapErr("list namespaces in", c.nsResource(parent), hint(c.access, awsaccess.OpListNamespaces, err), err)
	}
	all := make([]Namespace, 0, len(ids))
	for _, id := range ids {
		all = append(all, Namespace(id))
	}
	slices.SortFunc(all, func(a, b Namespace) int { return strings.Compare(a.String(), b.String()) })
	return pageOf(all, page)
}

func (c *icebergCatalog) ListTables(ctx context.Context, namespace []string, page PageRequest) (Page[TableIdent], error) {
	ctx = withAWS(ctx, c.fileAWS)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var all []TableIdent
	for id, err := range c.cat.ListTables(ctx, namespace) {
		if err != nil {
			return Page[TableIdent]{}, wrapErr("list tables in", c.nsResource(namespace), hint(c.access, awsaccess.OpListTables, err), err)
		}
		if len(id) < 2 {
			continue
		}
		all = append(all, TableIdent{Namespace: slices.Clone(id[:len(id)-1]), Name: id[len(id)-1]})
	}
	slices.SortFunc(all, func(a, b TableIdent) int { return strings.Compare(a.String(), b.String()) })
	return pageOf(all, page)
}

func (c *icebergCatalog) LoadTable(ctx context.Context, ident TableIdent) (*Table, error) {
	if err := ident.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(withAWS(ctx, c.fileAWS), c.timeout)
	defer cancel()
	tbl, err := c.cat.LoadTable(ctx, ident.iceberg())
	if err != nil {
		return nil, c.loadErr(ident, err)
	}
	switch {
	case c.data != nil:
		tbl = c.data.rewrap(tbl)
	case c.fileAWS != nil:
		tbl = policedFiles(tbl, c.fileAWS)
	}
	return c.cfg.newTable(ident, tbl), nil
}

// loadErr names the table; an unreadable metadata file is ErrBadMetadata.
func (c *icebergCatalog) loadErr(ident TableIdent, err error) error {
	kind := classify(err)
	if kind == nil && !errors.Is(err, icecatalog.ErrNoSuchTable) {
		kind = ErrBadMetadata
	}
	return &Error{Op: "load table", Resource: c.resource + " " + ident.String(), Permission: hint(c.access, awsaccess.OpLoadTable, err), Kind: kind, Err: err}
}

func (c *icebergCatalog) Describe(ctx context.Context, ident TableIdent) (TableInfo, error) {
	t, err := c.LoadTable(ctx, ident)
	if err != nil {
		return TableInfo{}, err
	}
	return t.Info(), nil
}

func (c *icebergCatalog) Validate(ctx context.Context) Report {
	return validate(ctx, c, c.access, c.resource, c.identity)
}

func (c *icebergCatalog) Close() error {
	var errs []error
	if cl, ok := c.cat.(icecatalog.Closer); ok {
		errs = append(errs, cl.Close())
	}
	for _, f := range c.closers {
		errs = append(errs, f())
	}
	return errors.Join(errs...)
}

func (c *icebergCatalog) nsResource(ns []string) string {
	if len(ns) == 0 {
		return c.resource
	}
	return c.resource + " " + strings.Join(ns, ".")
}
