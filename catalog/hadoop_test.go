package catalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/catalogtest"
	"github.com/floehq/floe/internal/lakefixture"
)

// hadoopFixture writes sales.orders (2 snapshots, 30 rows) into a Hadoop
// warehouse with iceberg-go's Hadoop catalog.
func hadoopFixture(t *testing.T, wh string, props iceberg.Properties) {
	t.Helper()
	cat, err := hadoop.NewCatalog("w", wh, props)
	if err != nil {
		t.Fatalf("hadoop catalog: %v", err)
	}
	if err := cat.CreateNamespace(t.Context(), table.Identifier{"sales"}, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	tbl, err := cat.CreateTable(t.Context(), table.Identifier{"sales", "orders"}, lakefixture.Schema())
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	if _, err := lakefixture.AppendBatches(t.Context(), tbl, 10, 20); err != nil {
		t.Fatalf("append: %v", err)
	}
}

func TestHadoopCatalog_LocalWarehouse(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	hadoopFixture(t, wh, nil)
	cat, err := catalog.Open(t.Context(), catalog.Config{Name: "files", Type: catalog.TypeHadoop,
		Props: map[string]string{catalog.PropWarehouse: "file://" + wh}}, discard())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer cat.Close()
	ident := catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}
	tbl, err := cat.LoadTable(t.Context(), ident)
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	if len(tbl.Snapshots()) != 2 || countRows(t, tbl) != 30 || !strings.Contains(tbl.MetadataLocation, wh) {
		t.Errorf("table %s: %d snapshots, want 2 and 30 rows under %s", tbl.MetadataLocation, len(tbl.Snapshots()), wh)
	}
	rep := cat.Validate(t.Context())
	if !rep.OK {
		t.Errorf("Validate = %+v", rep)
	}
	_, err = cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "gone"})
	if !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("LoadTable(gone) = %v, want ErrNotFound", err)
	}
}

func TestSQLCatalog_OpenErrors(t *testing.T) {
	_, err := catalog.Open(t.Context(), catalog.Config{Name: "pg", Type: catalog.TypeSQL,
		Props: map[string]string{"uri": "postgres://floe@127.0.0.1:1/cat", "driver": "no-such-driver"}, Secrets: map[string]string{"password": "pw-secret"}}, discard())
	if !errors.Is(err, catalog.ErrInvalidConfig) || !strings.Contains(err.Error(), `connections.pg.props.driver: unsupported driver "no-such-driver"`) ||
		strings.Contains(err.Error(), "pw-secret") {
		t.Fatalf("Open(driver not built in) = %v, want a props.driver error without the password", err)
	}
	dead := "127.0.0.1:" + itoa(freePort(t))
	_, err = catalog.Open(t.Context(), catalog.Config{Name: "pg", Type: catalog.TypeSQL,
		Props: map[string]string{"uri": "postgres://floe@" + dead + "/cat?sslmode=disable"}, Secrets: map[string]string{"password": "pw-secret"}}, discard())
	if !errors.Is(err, catalog.ErrUnreachable) || !strings.Contains(err.Error(), dead) || strings.Contains(err.Error(), "pw-secret") {
		t.Fatalf("Open(postgres down) = %v, want ErrUnreachable naming %s without the password", err, dead)
	}
}

// TestHadoopCatalog_Conformance runs the catalog conformance suite on a
// local Hadoop warehouse; the broken connection names a file that is not
// a warehouse directory.
func TestHadoopCatalog_Conformance(t *testing.T) {
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	hadoopLake(t, wh, nil)
	notADir := filepath.Join(dir, "file")
	if err := os.WriteFile(notADir, []byte("not a warehouse"), 0o600); err != nil {
		t.Fatal(err)
	}
	catalogtest.Run(t, catalogtest.Lake{
		Open: func(t *testing.T) catalog.Catalog {
			return openOK(t, catalog.Config{Name: "files", Type: catalog.TypeHadoop, Props: map[string]string{catalog.PropWarehouse: "file://" + wh}})
		},
		Namespaces: []string{"hr", "sales"},
		Table:      catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"},
		Tables:     []string{"orders", "returns"},
		Broken: func(t *testing.T) (catalog.Catalog, error) {
			return catalog.Open(t.Context(), catalog.Config{Name: "file", Type: catalog.TypeHadoop,
				Props: map[string]string{catalog.PropWarehouse: "file://" + notADir}}, discard())
		},
		BrokenKind: catalog.ErrBadCatalog,
	})
}

// hadoopLake is hadoopFixture plus hadoopMoreTables.
func hadoopLake(t *testing.T, wh string, props iceberg.Properties) {
	t.Helper()
	hadoopFixture(t, wh, props)
	hadoopMoreTables(t, wh, props)
}

// hadoopMoreTables adds the empty tables sales.returns and hr.people to
// hadoopFixture's warehouse, for listing.
func hadoopMoreTables(t *testing.T, wh string, props iceberg.Properties) {
	t.Helper()
	cat, err := hadoop.NewCatalog("w", wh, props)
	if err != nil {
		t.Fatalf("hadoop catalog: %v", err)
	}
	if err := cat.CreateNamespace(t.Context(), table.Identifier{"hr"}, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	for _, id := range []table.Identifier{{"sales", "returns"}, {"hr", "people"}} {
		if _, err := cat.CreateTable(t.Context(), id, lakefixture.Schema()); err != nil {
			t.Fatalf("create table %v: %v", id, err)
		}
	}
}
