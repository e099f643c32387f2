package api

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync/atomic"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/internal/redact"
	"github.com/floehq/floe/watcher"
)

//go:embed static
var staticFS embed.FS

// Watcher is what the API needs from the watcher.
type Watcher interface {
	Trigger(ctx context.Context, name string) (string, error)
	Pause(ctx context.Context, name string) (checkpoint.Table, error)
	Resume(ctx context.Context, name string) (checkpoint.Table, error)
	Status() []watcher.TableStatus
	TableState(ctx context.Context, name string) (watcher.TableStatus, error)
	// UpdateTable edits a table record compare-and-set on its revision
	// (what pause and resume use; PATCH does too).
	UpdateTable(ctx context.Context, name string, fn func(*checkpoint.Table) error) (checkpoint.Table, error)
	// DeleteTable removes the table's registration; no run of it starts
	// once it has answered (I8).
	DeleteTable(ctx context.Context, name string) error
	// AddTable registers a new external table (ErrConflict if it exists)
	// and schedules its first run at once.
	AddTable(ctx context.Context, t checkpoint.Table) error
	// Refresh re-reads the table list, dropping tables no longer stored.
	Refresh(ctx context.Context) error
}

// Catalogs opens catalog connections by name for browsing and onboarding.
// The Catalog returned belongs to the implementation (it may be cached and
// shared with the watcher): callers never Close it.
type Catalogs interface {
	Catalog(ctx context.Context, connection string) (catalog.Catalog, error)
}

// Server serves the API.
type Server struct {
	store   storeCalls
	watcher watcherCalls
	cats    Catalogs
	log     *slog.Logger
	version string
	started time.Time
	opts    Options
	red     *redact.Redactor
	tokens  tokenSet
	calls   chan struct{} // one slot per catalog call in flight
	tables  *tableCache
	srv     *http.Server
	ln      net.Listener
	// draining: the process is stopping; /healthz answers 503 (probes.go).
	draining atomic.Bool
}

// New returns a Server; Open starts listening. cats may be nil: the
// endpoints that talk to a catalog then answer 503. opts holds at most
// one Options (none: the defaults, an open API on loopback only).
func New(store checkpoint.Store, w Watcher, cats Catalogs, logger *slog.Logger, version string, opts ...Options) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o = o.withDefaults()
	if o.Metrics == nil {
		o.Metrics = defaultMetrics(w)
	}
	sc := storeCalls{s: store, timeout: o.StoreTimeout, name: o.StoreName}
	s := &Server{store: sc, watcher: watcherCalls{w: w, c: sc}, cats: cats, log: logger, version: version,
		started: time.Now(), opts: o, red: o.Redactor, tokens: newTokenSet(o.AdminTokens, o.ReadTokens),
		calls: make(chan struct{}, o.MaxCatalogCalls), tables: &tableCache{}}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout, IdleTimeout: o.IdleTimeout,
		MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug)}
	return s
}

// Handler returns the routes (tests use it with httptest). Every request
// passes the Host check; every mutating one the Origin check; each route
// then its access level, content type and catalog-call limit.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.routes() {
		mux.Handle(r.pattern, s.guard(r))
	}
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /", http.FileServerFS(static))
	return s.checkHost(s.checkOrigin(mux))
}

// access is who may call a route.
type access int

const (
	open  access = iota // anyone
	read                // a read or admin token
	admin               // an admin token
)

// route is one API pattern and its handler.
type route struct {
	pattern string
	handler http.HandlerFunc
	access  access
	catalog bool // reaches a catalog: counts against MaxCatalogCalls
}

// Routes lists every "METHOD /path" pattern the API serves except the
// static status page ("GET /"); the OpenAPI document describes them all.
func (s *Server) Routes() []string {
	var out []string
	for _, r := range s.routes() {
		out = append(out, r.pattern)
	}
	return out
}

func (s *Server) routes() []route {
	metrics := open
	if s.opts.ProtectMetrics {
		metrics = read
	}
	return []route{
		{"GET /healthz", s.handleHealth, open, false},
		{"GET /livez", s.handleLive, open, false},
		{"GET /version", s.handleVersion, open, false},
		{"GET /metrics", s.handleMetrics, metrics, false},
		{"GET /api/v1/openapi.json", s.handleOpenAPI, read, false},
		{"GET /api/v1/summary", s.handleSummary, read, false},
		{"GET /api/v1/tables", s.handleListTables, read, false},
		{"POST /api/v1/tables", s.handleCreateTable, admin, true},
		{"POST /api/v1/tables/preview", s.handlePreview, admin, true},
		{"GET /api/v1/tables/{name}", s.handleGetTable, read, false},
		{"PATCH /api/v1/tables/{name}", s.handlePatchTable, admin, false},
		{"DELETE /api/v1/tables/{name}", s.handleDeleteTable, admin, false},
		{"GET /api/v1/tables/{name}/status", s.handleTableStatus, read, false},
		{"GET /api/v1/tables/{name}/checkpoint", s.handleCheckpoint, read, false},
		{"GET /api/v1/tables/{name}/runs", s.handleRuns, read, false},
		{"POST /api/v1/tables/{name}/trigger", s.handleTrigger, admin, false},
		{"POST /api/v1/tables/{name}/notify", s.handleNotify, admin, false},
		{"POST /api/v1/tables/{name}/pause", s.handlePause, admin, false},
		{"POST /api/v1/tables/{name}/resume", s.handleResume, admin, false},
		{"GET /api/v1/catalog-types", s.handleCatalogTypes, read, false},
		{"GET /api/v1/connections", s.handleListConnections, read, false},
		{"POST /api/v1/connections", s.handlePutConnection, admin, false},
		{"GET /api/v1/connections/{name}", s.handleGetConnection, read, false},
		{"DELETE /api/v1/connections/{name}", s.handleDeleteConnection, admin, false},
		{"POST /api/v1/connections/{name}/validate", s.handleValidateConnection, admin, true},
		{"GET /api/v1/connections/{name}/iam-policy", s.handleIAMPolicy, read, false},
		{"POST /api/v1/connections/{name}/iam-policy", s.handleIAMPolicyUnsaved, admin, false},
		{"GET /api/v1/connections/{name}/cloudformation", s.handleCloudFormation, read, false},
		{"POST /api/v1/connections/{name}/cloudformation", s.handleCloudFormationUnsaved, admin, false},
		{"GET /api/v1/connections/{name}/namespaces", s.handleListNamespaces, read, true},
		{"GET /api/v1/connections/{name}/namespaces/{ns}/tables", s.handleListCatalogTables, read, true},
		{"GET /api/v1/connections/{name}/namespaces/{ns}/tables/{table}", s.handleDescribeTable, read, true},
		{"GET /debug/pprof/", pprof.Index, admin, false},
		{"GET /debug/pprof/profile", pprof.Profile, admin, false},
		{"GET /debug/pprof/trace", pprof.Trace, admin, false},
	}
}

// Open listens on addr (use 127.0.0.1:0 for a free port) and serves in
// the background. Without tokens it serves loopback addresses only,
// unless Options.Insecure is set.
func (s *Server) Open(addr string) error {
	if !s.opts.hasTokens() && !s.opts.Insecure && !egress.IsLoopbackAddr(addr) {
		return fmt.Errorf("listen on %s: no API token is set, so floe serves loopback addresses only "+
			"(set server.adminTokens, or server.insecure: true)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.ln = ln
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("api server stopped", slog.String("error", err.Error()))
		}
	}()
	return nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, waiting for requests in flight until ctx ends.
func (s *Server) Close(ctx context.Context) error {
	if err := s.srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shut down api server: %w", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
