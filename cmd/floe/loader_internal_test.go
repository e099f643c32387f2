package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/redact"
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
	l := newCatalogLoader(store, nil, catalog.Policy{LocalRoots: []string{dir}}, redact.New())
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

// The loader applies the policy on every open: a local file outside the
// roots is refused, a secret reference is read then and the redactor
// learns its value.
func TestCatalogLoader_Policy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lake, err := openDemoLake(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lake.Close()
	store := checkpoint.NewMemory()
	red := redact.New()
	env := map[string]string{"LAKE_PW": "env-secret-31337"}
	policy := catalog.Policy{LocalRoots: []string{t.TempDir()}, SecretEnv: []string{"LAKE_PW"},
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	l := newCatalogLoader(store, nil, policy, red)
	defer l.Close()
	conn := checkpoint.Connection{Name: "lake", Type: "sql", UpdatedAt: time.Unix(1, 0),
		Props:   map[string]string{"uri": filepath.Join(dir, "catalog.db"), "catalog-name": demoCatalogName},
		Secrets: map[string]string{"token": "${env:LAKE_PW}"}}
	if err := store.PutConnection(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Catalog(ctx, "lake"); !errors.Is(err, catalog.ErrInvalidConfig) ||
		!strings.Contains(err.Error(), "connections.lake.props.uri") {
		t.Fatalf("a catalog outside the local roots: %v", err)
	}
	if got := red.Scrub("x env-secret-31337"); got != "x env-secret-31337" {
		t.Fatal("a refused open must not read the secret")
	}
	l.policy.LocalRoots = []string{dir}
	if _, err := l.Catalog(ctx, "lake"); err != nil {
		t.Fatal(err)
	}
	if got := red.Scrub("x env-secret-31337"); got != "x REDACTED" {
		t.Fatalf("the redactor does not know the resolved secret: %q", got)
	}
}
