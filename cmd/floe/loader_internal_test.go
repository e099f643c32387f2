package main

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
)

// The loader hands the API the catalog it caches, reopens it when the
// connection changes, and drops it when the connection is deleted.
func TestCatalogLoader_Catalog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lake, err := openDemoLake(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lake.Close()
	store := checkpoint.NewMemory()
	put := func(at time.Time) {
		t.Helper()
		conn := checkpoint.Connection{Name: "lake", Type: "sql", UpdatedAt: at,
			Props: map[string]string{"uri": filepath.Join(dir, "catalog.db"), "catalog-name": demoCatalogName}}
		if err := store.PutConnection(ctx, conn); err != nil {
			t.Fatal(err)
		}
	}
	put(time.Unix(1, 0))
	l := newCatalogLoader(store, nil)
	defer l.Close()

	first, err := l.Catalog(ctx, "lake")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := l.Catalog(ctx, "lake"); err != nil || again != first {
		t.Fatalf("unchanged connection must reuse its catalog: %v", err)
	}
	p, err := first.ListTables(ctx, []string{"demo"}, catalog.PageRequest{})
	if err != nil || len(p.Items) != 1 || p.Items[0].Name != "events" {
		t.Fatalf("list tables through the loader's catalog: %+v %v", p, err)
	}
	put(time.Unix(2, 0))
	changed, err := l.Catalog(ctx, "lake")
	if err != nil || changed == first {
		t.Fatalf("a changed connection must get a new catalog: %v", err)
	}
	if err := store.DeleteConnection(ctx, "lake"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Catalog(ctx, "lake"); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("deleted connection: %v", err)
	}
	if n := len(l.open); n != 0 {
		t.Fatalf("the deleted connection's catalog is still cached (%d open)", n)
	}
}
