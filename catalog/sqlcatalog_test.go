package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/catalogtest"
	"github.com/floehq/floe/internal/lakefixture"
)

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// sqlFixture writes sales.orders (2 snapshots, 30 rows) and sales.empty.
func sqlFixture(t *testing.T) (dbPath, wh string) {
	t.Helper()
	dir := t.TempDir()
	dbPath, wh = filepath.Join(dir, "catalog.db"), "file://"+filepath.Join(dir, "wh")
	if _, err := lakefixture.WriteFixture(t.Context(), lakefixture.Options{Name: "demo", DBPath: dbPath, Warehouse: wh}, "sales", "orders", "", 10, 20); err != nil {
		t.Fatalf("write fixture: %v", err)
	}
	return dbPath, wh
}

func openSQL(t *testing.T, dbPath string) catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(t.Context(), catalog.Config{Name: "demo", Type: catalog.TypeSQL,
		Props: map[string]string{"uri": dbPath}}, discard())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}

func TestSQLCatalog_BrowseAndLoad(t *testing.T) {
	dbPath, _ := sqlFixture(t)
	cat := openSQL(t, dbPath)
	ctx := t.Context()

	nss, err := cat.ListNamespaces(ctx, nil, catalog.PageRequest{})
	if err != nil {
		t.Fatalf("ListNamespaces: %v", err)
	}
	if len(nss.Items) != 1 || nss.Items[0].String() != "sales" {
		t.Fatalf("namespaces = %v, want [sales]", nss.Items)
	}
	tables, err := cat.ListTables(ctx, []string{"sales"}, catalog.PageRequest{})
	if err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	if len(tables.Items) != 1 || tables.Items[0].String() != "sales.orders" {
		t.Fatalf("tables = %v, want [sales.orders]", tables.Items)
	}
	tbl, err := cat.LoadTable(ctx, tables.Items[0])
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	if got := len(tbl.Snapshots()); got != 2 {
		t.Errorf("snapshots = %d, want 2", got)
	}
	if tbl.UUID == "" || tbl.MetadataLocation == "" {
		t.Errorf("UUID %q / metadata location %q must be set", tbl.UUID, tbl.MetadataLocation)
	}
	info, err := cat.Describe(ctx, tables.Items[0])
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	if info.SnapshotCount != 2 || info.FormatVersion != 2 || info.CurrentSnapshot == nil ||
		info.CurrentSnapshot.Summary["total-records"] != "30" || len(info.Schema.Fields()) != 2 {
		t.Errorf("Describe = %+v, want 2 snapshots, v2, 30 records, 2 fields", info)
	}
	js, err := json.Marshal(info)
	if err != nil || !containsAll(string(js), `"snapshotCount":2`, `"formatVersion":2`, `"name":"id"`, `"metadataLocation"`) {
		t.Errorf("TableInfo JSON = %s, %v", js, err)
	}
	rows := countRows(t, tbl)
	if rows != 30 {
		t.Errorf("scan rows = %d, want 30", rows)
	}
}

func countRows(t *testing.T, tbl *catalog.Table) int64 {
	t.Helper()
	_, it, err := tbl.Iceberg.Scan().ToArrowRecords(context.Background())
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	var n int64
	for rec, err := range it {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	return n
}

func TestSQLCatalog_Validate(t *testing.T) {
	dbPath, _ := sqlFixture(t)
	rep := openSQL(t, dbPath).Validate(t.Context())
	if !rep.OK || len(rep.Steps) != 4 {
		t.Fatalf("Validate = %+v, want 4 ok steps", rep)
	}
	for _, s := range rep.Steps {
		if s.Status != catalog.StepOK {
			t.Errorf("step %q = %s (%s)", s.Name, s.Status, s.Error)
		}
	}
	if last := rep.Steps[3].Detail; !containsAll(last, ".parquet", "rows") {
		t.Errorf("footer step detail = %q, want a parquet path and a row count", last)
	}
}

func TestSQLCatalog_LoadTableErrors(t *testing.T) {
	dbPath, _ := sqlFixture(t)
	cat := openSQL(t, dbPath)
	_, err := cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "nope"})
	if !errors.Is(err, catalog.ErrNotFound) || !containsAll(err.Error(), "sales.nope") {
		t.Errorf("LoadTable(unknown) = %v, want ErrNotFound naming sales.nope", err)
	}
	_, err = cat.LoadTable(t.Context(), catalog.TableIdent{Name: "orders"})
	if !errors.Is(err, catalog.ErrInvalidConfig) {
		t.Errorf("LoadTable(no namespace) = %v, want ErrInvalidConfig", err)
	}
}

func TestSQLCatalog_Paging(t *testing.T) {
	dir := t.TempDir()
	dbPath, wh := filepath.Join(dir, "c.db"), "file://"+filepath.Join(dir, "wh")
	for _, ns := range []string{"a", "b", "c"} {
		if _, err := lakefixture.WriteFixture(t.Context(), lakefixture.Options{Name: "demo", DBPath: dbPath, Warehouse: wh}, ns, "t", ""); err != nil {
			t.Fatal(err)
		}
	}
	cat := openSQL(t, dbPath)
	var got []string
	req := catalog.PageRequest{Size: 2}
	for pages := 0; ; pages++ {
		p, err := cat.ListNamespaces(t.Context(), nil, req)
		if err != nil {
			t.Fatalf("ListNamespaces: %v", err)
		}
		for _, n := range p.Items {
			got = append(got, n.String())
		}
		if p.NextToken == "" {
			if pages != 1 {
				t.Errorf("pages = %d, want 2", pages+1)
			}
			break
		}
		req.Token = p.NextToken
	}
	if len(got) != 3 || got[0] != "a" || got[2] != "c" {
		t.Errorf("namespaces = %v, want [a b c]", got)
	}
	if _, err := cat.ListNamespaces(t.Context(), nil, catalog.PageRequest{Token: "x"}); !errors.Is(err, catalog.ErrInvalidConfig) {
		t.Errorf("bad token = %v, want ErrInvalidConfig", err)
	}
}

// TestSQLCatalog_Conformance runs the catalog conformance suite on a
// sqlite SQL catalog; the broken connection names a file that is not a
// catalog database.
func TestSQLCatalog_Conformance(t *testing.T) {
	dir := t.TempDir()
	l := lakefixture.OpenT(t, lakefixture.Options{Name: "demo", DBPath: filepath.Join(dir, "catalog.db"), Warehouse: "file://" + filepath.Join(dir, "wh")})
	orders, err := l.FixtureTable(t.Context(), "sales", "orders", "", 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range [][2]string{{"sales", "returns"}, {"hr", "people"}} {
		if _, err := l.FixtureTable(t.Context(), id[0], id[1], ""); err != nil {
			t.Fatal(err)
		}
	}
	notADB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notADB, []byte("these are notes, not a sqlite database file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	catalogtest.Run(t, catalogtest.Lake{
		Open:             func(t *testing.T) catalog.Catalog { return openSQL(t, l.DBPath) },
		Namespaces:       []string{"hr", "sales"},
		Table:            catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"},
		Tables:           []string{"orders", "returns"},
		MetadataLocation: orders.MetadataLocation(),
		Broken: func(t *testing.T) (catalog.Catalog, error) {
			return catalog.Open(t.Context(), catalog.Config{Name: "notes", Type: catalog.TypeSQL,
				Props: map[string]string{catalog.PropURI: notADB}}, discard())
		},
		BrokenKind: catalog.ErrBadCatalog,
	})
}
