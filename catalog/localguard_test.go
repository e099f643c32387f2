package catalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/internal/lakefixture"
)

// The catalog, not the connection, names a table's metadata, manifests and
// data files. A catalog allowed under security.localRoots whose table
// lives outside them cannot make floe read those files: planning the
// table fails on its first local read, naming the file and the setting;
// with the table's directory listed too, the same table reads.
func TestPolicy_GuardsLocalTableFiles(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	dbPath := filepath.Join(root, "catalog.db")
	if _, err := lakefixture.WriteFixture(t.Context(), lakefixture.Options{Name: "demo", DBPath: dbPath, Warehouse: "file://" + outside}, "sales", "orders", "", 10, 20); err != nil {
		t.Fatalf("write fixture: %v", err)
	}
	plan := func(roots ...string) (int, error) {
		t.Helper()
		cfg, err := catalog.Policy{LocalRoots: roots}.Resolve(catalog.Config{Name: "demo", Type: catalog.TypeSQL,
			Props: map[string]string{"uri": dbPath}})
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		cat, err := catalog.Open(t.Context(), cfg, discard())
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer cat.Close()
		tbl, err := cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"})
		if err != nil {
			t.Fatalf("LoadTable: %v", err)
		}
		tasks, err := tbl.Iceberg.Scan().PlanFiles(t.Context())
		return len(tasks), err
	}

	_, err := plan(root)
	if !errors.Is(err, catalog.ErrAccessDenied) {
		t.Fatalf("planning a table whose files lie outside the roots: %v, want ErrAccessDenied", err)
	}
	for _, want := range []string{"open local file", outside, "security.localRoots"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	n, err := plan(root, outside)
	if err != nil || n != 2 {
		t.Fatalf("with the table's directory allowed: %d files, %v; want 2 files", n, err)
	}
}

// A symlink under a root that leads out of it does not open the way.
func TestPolicy_GuardsSymlinkedTableFiles(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "wh")); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(root, "catalog.db")
	if _, err := lakefixture.WriteFixture(t.Context(), lakefixture.Options{Name: "demo", DBPath: dbPath, Warehouse: "file://" + filepath.Join(root, "wh")}, "sales", "orders", "", 10); err != nil {
		t.Fatalf("write fixture: %v", err)
	}
	cfg, err := catalog.Policy{LocalRoots: []string{root}}.Resolve(catalog.Config{Name: "demo", Type: catalog.TypeSQL,
		Props: map[string]string{"uri": dbPath}})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Open(t.Context(), cfg, discard())
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.LoadTable(t.Context(), catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Iceberg.Scan().PlanFiles(t.Context()); !errors.Is(err, catalog.ErrAccessDenied) ||
		!strings.Contains(err.Error(), "outside the allowed directories") {
		t.Fatalf("planning through a symlink out of the root: %v, want ErrAccessDenied naming the roots", err)
	}
}
