//go:build integration

package catalog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/floehq/floe/catalog"
)

// TestSQL_PyIcebergCatalog: a sqlite SQL catalog written by PyIceberg is
// read by floe without changing it.
func TestSQL_PyIcebergCatalog(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "pyiceberg.db")
	written := pyIceberg(t, "sql", "--uri", "sqlite:///"+db, "--warehouse", "file://"+filepath.Join(dir, "wh"),
		"--catalog", "py", "sales.orders")
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	cat := openOK(t, catalog.Config{Name: "pyiceberg", Type: catalog.TypeSQL,
		Props: map[string]string{catalog.PropURI: db, catalog.PropSQLCatalogName: "py"}})
	checkLoaded(t, cat, catalog.TableIdent{Namespace: []string{"sales"}, Name: "orders"}, written[0].MetadataLocation)
	checkValid(t, cat)
	if err := cat.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	after, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Errorf("floe changed the PyIceberg catalog database (%d → %d bytes)", len(before), len(after))
	}
}
