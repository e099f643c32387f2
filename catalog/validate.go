package catalog

import (
	"context"
	"errors"
	"fmt"

	"github.com/parquet-go/parquet-go"

	"github.com/floehq/floe/catalog/awsaccess"
)

// Step outcomes.
const (
	StepOK      = "ok"
	StepFailed  = "failed"
	StepSkipped = "skipped"
)

// Report is the result of Catalog.Validate.
type Report struct {
	OK    bool     `json:"ok"`
	Steps []Step   `json:"steps"`
	Notes []string `json:"notes,omitempty"`
}

// Step is one check: list namespaces, list tables, load table, read footer.
type Step struct {
	Name       string `json:"name"`
	Status     string `json:"status"`
	Detail     string `json:"detail,omitempty"`
	Error      string `json:"error,omitempty"`
	Permission string `json:"permission,omitempty"` // the permission that is missing, when known
	Resource   string `json:"resource,omitempty"`
	denied     bool   // failed with ErrAccessDenied (retried by ValidateWithRetry)
}

// Err returns the first failed step as an error, or nil.
func (r Report) Err() error {
	for _, s := range r.Steps {
		if s.Status == StepFailed {
			return fmt.Errorf("validate connection: %s: %s", s.Name, s.Error)
		}
	}
	return nil
}

func (r *Report) ok(name, detail string) {
	r.Steps = append(r.Steps, Step{Name: name, Status: StepOK, Detail: detail})
}

func (r *Report) skip(names ...string) {
	for _, n := range names {
		r.Steps = append(r.Steps, Step{Name: n, Status: StepSkipped})
	}
}

func (r *Report) fail(name string, err error) {
	s := Step{Name: name, Status: StepFailed, Error: err.Error()}
	var ce *Error
	if errors.As(err, &ce) {
		s.Resource = ce.Resource
		s.denied = errors.Is(err, ErrAccessDenied)
		if errors.Is(err, ErrAccessDenied) || errors.Is(err, ErrBadCredentials) {
			s.Permission = ce.Permission
		}
	}
	r.Steps = append(r.Steps, s)
	r.OK = false
}

// Validation step names.
const (
	stepCredentials    = "check credentials"
	stepListNamespaces = "list namespaces"
	stepListTables     = "list tables"
	stepLoadTable      = "load table"
	stepReadFooter     = "read data file footer"
)

// identityCheck proves credentials work before anything else (AWS only).
type identityCheck func(context.Context) (string, error)

// validate runs the steps against any Catalog.
func validate(ctx context.Context, c Catalog, access awsaccess.Access, resource string, identity identityCheck) Report {
	r := Report{OK: true}
	if identity != nil {
		who, err := identity(ctx)
		if err != nil {
			r.fail(stepCredentials, err)
			r.skip(stepListNamespaces, stepListTables, stepLoadTable, stepReadFooter)
			return r
		}
		r.ok(stepCredentials, who)
	}
	nss, err := c.ListNamespaces(ctx, nil, PageRequest{Size: MaxPageSize})
	if err != nil {
		r.fail(stepListNamespaces, err)
		r.skip(stepListTables, stepLoadTable, stepReadFooter)
		return r
	}
	r.ok(stepListNamespaces, fmt.Sprintf("%d namespace(s) in %s", len(nss.Items), resource))
	ident, found, err := firstTable(ctx, c, nss.Items)
	switch {
	case err != nil:
		r.fail(stepListTables, err)
		r.skip(stepLoadTable, stepReadFooter)
		return r
	case !found:
		r.ok(stepListTables, "no tables found")
		r.skip(stepLoadTable, stepReadFooter)
		return r
	}
	r.ok(stepListTables, "found "+ident.String())
	tbl, err := c.LoadTable(ctx, ident)
	if err != nil {
		r.fail(stepLoadTable, err)
		r.skip(stepReadFooter)
		return r
	}
	r.ok(stepLoadTable, fmt.Sprintf("%s at %s (%d snapshot(s))", ident, tbl.MetadataLocation, len(tbl.Snapshots())))
	detail, err := readOneFooter(ctx, tbl, access)
	if err != nil {
		r.fail(stepReadFooter, err)
		return r
	}
	r.ok(stepReadFooter, detail)
	return r
}

// firstTable finds one table in the first namespaces that have any.
func firstTable(ctx context.Context, c Catalog, nss []Namespace) (TableIdent, bool, error) {
	for i, ns := range nss {
		if i >= 20 {
			break
		}
		p, err := c.ListTables(ctx, ns, PageRequest{Size: 1})
		if err != nil {
			return TableIdent{}, false, err
		}
		if len(p.Items) > 0 {
			return p.Items[0], true, nil
		}
	}
	return TableIdent{}, false, nil
}

// readOneFooter opens the first data file of the current snapshot and
// parses its Parquet footer.
func readOneFooter(ctx context.Context, t *Table, access awsaccess.Access) (string, error) {
	if t.CurrentSnapshot() == nil {
		return "table has no snapshot, no data file to read", nil
	}
	tasks, err := t.Iceberg.Scan().PlanFiles(ctx)
	if err != nil {
		return "", wrapErr("plan files of", t.Ident.String(), dataHint(access, awsaccess.OpReadData, t.MetadataLocation, err), err)
	}
	if len(tasks) == 0 {
		return "current snapshot has no data files", nil
	}
	path := tasks[0].File.FilePath()
	rows, err := parquetFooterRows(ctx, t, path)
	if err != nil {
		return "", wrapErr("read footer of", path, dataHint(access, awsaccess.OpReadData, path, err), err)
	}
	return fmt.Sprintf("%s: %d rows", path, rows), nil
}

func parquetFooterRows(ctx context.Context, t *Table, path string) (int64, error) {
	fs, err := t.Iceberg.FS(ctx)
	if err != nil {
		return 0, err
	}
	f, err := fs.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, fmt.Errorf("parse parquet footer: %w", err)
	}
	return pf.NumRows(), nil
}
