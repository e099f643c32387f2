package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/redact"
	"github.com/floehq/floe/watcher"
)

// catalogLoader implements watcher.TableLoader: it opens each connection's
// catalog once and reuses it, reopening when the connection changes.
type catalogLoader struct {
	store  checkpoint.Store
	log    *slog.Logger
	policy catalog.Policy   // local files and secret references allowed
	red    *redact.Redactor // learns each connection's secrets as it opens

	mu   sync.Mutex
	open map[string]openCatalog
}

type openCatalog struct {
	cat     catalog.Catalog
	version string // the connection's UpdatedAt when opened
}

var (
	_ watcher.TableLoader = (*catalogLoader)(nil)
	_ api.Catalogs        = (*catalogLoader)(nil)
)

func newCatalogLoader(store checkpoint.Store, logger *slog.Logger, policy catalog.Policy, red *redact.Redactor) *catalogLoader {
	return &catalogLoader{store: store, log: logger, policy: policy, red: red, open: map[string]openCatalog{}}
}

// catalogFor returns the open catalog of the named connection.
func (l *catalogLoader) catalogFor(ctx context.Context, name string) (catalog.Catalog, error) {
	conn, err := l.store.GetConnection(ctx, name)
	if errors.Is(err, checkpoint.ErrNotFound) {
		l.forget(name)
	}
	if err != nil {
		return nil, fmt.Errorf("connection %s: %w", name, err)
	}
	version := conn.UpdatedAt.String()
	if cat := l.cached(name, version); cat != nil {
		return cat, nil
	}
	// Open outside the lock: a catalog that is slow to answer must not hold
	// up the other connections' tables.
	// A record from before the one secret model still has credentials in
	// props: they are used from secrets (learnStoredSecrets rewrites it).
	cfg, _ := catalog.Config{Name: conn.Name, Type: conn.Type, Props: conn.Props, Secrets: conn.Secrets}.MoveCredentials()
	l.red.Set("stored/"+name, cfg.SecretValues()...)
	cfg, err = l.policy.Resolve(cfg)
	if err != nil {
		return nil, fmt.Errorf("open connection %s: %w", name, err)
	}
	l.red.Set("opened/"+name, cfg.SecretValues()...)
	cat, err := catalog.Open(ctx, cfg, l.log)
	if err != nil {
		return nil, fmt.Errorf("open connection %s: %w", name, err)
	}
	return l.keep(name, version, cat), nil
}

// cached returns the open catalog of the connection at version, closing
// one opened at an older version; nil when there is none.
func (l *catalogLoader) cached(name, version string) catalog.Catalog {
	l.mu.Lock()
	defer l.mu.Unlock()
	oc, ok := l.open[name]
	switch {
	case !ok:
		return nil
	case oc.version == version:
		return oc.cat
	}
	_ = oc.cat.Close()
	delete(l.open, name)
	return nil
}

// keep caches cat unless another caller opened the same version first,
// in which case cat is closed and theirs returned.
func (l *catalogLoader) keep(name, version string, cat catalog.Catalog) catalog.Catalog {
	l.mu.Lock()
	defer l.mu.Unlock()
	if oc, ok := l.open[name]; ok {
		if oc.version == version {
			_ = cat.Close()
			return oc.cat
		}
		_ = oc.cat.Close()
	}
	l.open[name] = openCatalog{cat: cat, version: version}
	return cat
}

// Catalog returns the named connection's open catalog for the API; the
// loader keeps owning it.
func (l *catalogLoader) Catalog(ctx context.Context, name string) (catalog.Catalog, error) {
	return l.catalogFor(ctx, name)
}

// forget closes the cached catalog of a connection that is gone.
func (l *catalogLoader) forget(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if oc, ok := l.open[name]; ok {
		_ = oc.cat.Close()
		delete(l.open, name)
	}
}

// LoadTable loads the Iceberg table behind t.
func (l *catalogLoader) LoadTable(ctx context.Context, t checkpoint.Table) (*watcher.Source, error) {
	cat, err := l.catalogFor(ctx, t.Connection)
	if err != nil {
		return nil, err
	}
	ident := catalog.TableIdent{Namespace: strings.Split(t.Namespace, "."), Name: t.Source}
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl.Iceberg, MetadataLocation: tbl.MetadataLocation}, nil
}

// Close closes every open catalog.
func (l *catalogLoader) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for name, oc := range l.open {
		_ = oc.cat.Close()
		delete(l.open, name)
	}
}
