package notify

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
)

// Tables is what matching reads from the checkpoint store (checkpoint.Store
// implements it).
type Tables interface {
	TableRevision(ctx context.Context) (int64, error)
	SnapshotTables(ctx context.Context) (checkpoint.TableSnapshot, error)
	ListConnections(ctx context.Context) ([]checkpoint.Connection, error)
	TableOverviews(ctx context.Context, names []string) ([]checkpoint.TableOverview, error)
	GetTable(ctx context.Context, name string) (checkpoint.Table, error)
}

// binding is one registered table as matching sees it: which catalog
// holds its source and where its files live.
type binding struct {
	name       string
	connection string
	kind       Kind   // KindGlue, KindS3Tables, or "" (matched by location only)
	region     string // Glue: the connection's region ("" any)
	catalog    string // Glue catalog id ("" any) or S3 Tables bucket ARN
	namespace  string
	table      string
	location   string // from the checkpoint's metadata file ("" before the first sync)
}

// index maps events to registered tables (N2). It is rebuilt when the
// store's table revision moves, and at least every maxAge, so that the
// location a table's first checkpoint records is learned.
type index struct {
	revision int64
	built    time.Time
	bindings []binding
	byName   map[string][]int // lower(namespace)+"\x00"+lower(table) → bindings
	byLoc    map[string][]int // location → bindings
}

// buildIndex reads every table, its connection and its checkpoint's
// metadata location.
func buildIndex(ctx context.Context, store Tables, now time.Time) (*index, error) {
	snap, err := store.SnapshotTables(ctx)
	if err != nil {
		return nil, fmt.Errorf("read tables: %w", err)
	}
	conns, err := store.ListConnections(ctx)
	if err != nil {
		return nil, fmt.Errorf("read connections: %w", err)
	}
	byConn := make(map[string]checkpoint.Connection, len(conns))
	for _, c := range conns {
		byConn[c.Name] = c
	}
	names := make([]string, len(snap.Tables))
	for i, t := range snap.Tables {
		names[i] = t.Name
	}
	overviews, err := store.TableOverviews(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	ix := &index{revision: snap.Revision, built: now, byName: map[string][]int{}, byLoc: map[string][]int{}}
	for i, t := range snap.Tables {
		b := bind(t, byConn[t.Connection])
		if i < len(overviews) && overviews[i].Summary != nil {
			b.location, _ = TableLocation(overviews[i].Summary.MetadataLocation)
		}
		ix.add(b)
	}
	return ix, nil
}

func nameKey(namespace, table string) string {
	return strings.ToLower(namespace) + "\x00" + strings.ToLower(table)
}

func (ix *index) add(b binding) {
	n := len(ix.bindings)
	ix.bindings = append(ix.bindings, b)
	if b.kind != "" {
		k := nameKey(b.namespace, b.table)
		ix.byName[k] = append(ix.byName[k], n)
	}
	if b.location != "" {
		ix.byLoc[b.location] = append(ix.byLoc[b.location], n)
	}
}

// bind describes a table for matching from its connection: Glue (native,
// or the Glue Iceberg REST endpoint) and S3 Tables (native, or REST with
// the bucket ARN as warehouse) tables match catalog events by name; every
// table matches storage events by location.
func bind(t checkpoint.Table, c checkpoint.Connection) binding {
	b := binding{name: t.Name, connection: t.Connection, namespace: t.Namespace, table: t.Source}
	prop := func(k string) string { return strings.TrimSpace(c.Props[k]) }
	switch {
	case c.Type == catalog.TypeGlue:
		b.kind, b.region, b.catalog = KindGlue, prop(catalog.PropRegion), prop(catalog.PropCatalogID)
	case c.Type == catalog.TypeS3Tables:
		b.kind, b.catalog = KindS3Tables, prop(catalog.PropARN)
	case c.Type == catalog.TypeREST && strings.HasPrefix(prop(catalog.PropWarehouse), "arn:aws:s3tables:"):
		b.kind, b.catalog = KindS3Tables, prop(catalog.PropWarehouse)
	case c.Type == catalog.TypeREST && isGlueEndpoint(prop(catalog.PropURI)) && !strings.Contains(prop(catalog.PropWarehouse), ":"):
		b.kind, b.catalog = KindGlue, prop(catalog.PropWarehouse)
		b.region = prop(catalog.PropSigningRegion)
	}
	return b
}

// isGlueEndpoint reports whether uri is AWS Glue's Iceberg REST endpoint.
func isGlueEndpoint(uri string) bool {
	u, err := url.Parse(uri)
	return err == nil && strings.HasPrefix(u.Hostname(), "glue.") && strings.HasSuffix(u.Hostname(), ".amazonaws.com")
}

// match returns the names of the tables e announces a commit of, sorted
// and without repeats (N2): a catalog event names its table exactly
// (catalog, namespace, table; Glue's region and catalog id where the
// connection fixes them), a storage event its table's location.
func (ix *index) match(e Event) []string {
	seen := map[string]bool{}
	var out []string
	add := func(b binding) {
		if !seen[b.name] {
			seen[b.name] = true
			out = append(out, b.name)
		}
	}
	if e.Kind == KindGlue || e.Kind == KindS3Tables {
		for _, i := range ix.byName[nameKey(e.Namespace, e.Table)] {
			if b := ix.bindings[i]; b.matchesCatalog(e) {
				add(b)
			}
		}
	}
	if loc := e.Location(); loc != "" {
		for _, i := range ix.byLoc[loc] {
			add(ix.bindings[i])
		}
	}
	sort.Strings(out)
	return out
}

// matchesCatalog checks the catalog side of a name match.
func (b binding) matchesCatalog(e Event) bool {
	if b.kind != e.Kind {
		return false
	}
	switch e.Kind {
	case KindGlue:
		return (b.region == "" || e.Region == "" || b.region == e.Region) &&
			(b.catalog == "" || b.catalog == e.Catalog)
	case KindS3Tables:
		return b.catalog != "" && b.catalog == e.Catalog
	}
	return false
}

// restrict keeps the bindings of the named connections (none: all).
func (ix *index) restrict(connections []string) *index {
	if len(connections) == 0 {
		return ix
	}
	keep := map[string]bool{}
	for _, c := range connections {
		keep[c] = true
	}
	out := &index{revision: ix.revision, built: ix.built, byName: map[string][]int{}, byLoc: map[string][]int{}}
	for _, b := range ix.bindings {
		if keep[b.connection] {
			out.add(b)
		}
	}
	return out
}
