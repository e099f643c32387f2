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
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/schema"
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
	store   checkpoint.Store
	watcher Watcher
	cats    Catalogs
	log     *slog.Logger
	version string
	started time.Time
	srv     *http.Server
	ln      net.Listener
}

// New returns a Server; Open starts listening. cats may be nil: the
// endpoints that talk to a catalog then answer 503.
func New(store checkpoint.Store, w Watcher, cats Catalogs, logger *slog.Logger, version string) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{store: store, watcher: w, cats: cats, log: logger, version: version, started: time.Now()}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	return s
}

// Handler returns the routes (tests use it with httptest).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.routes() {
		mux.HandleFunc(r.pattern, r.handler)
	}
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /", http.FileServerFS(static))
	return mux
}

// route is one API pattern and its handler.
type route struct {
	pattern string
	handler http.HandlerFunc
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
	return []route{
		{"GET /healthz", s.handleHealth},
		{"GET /metrics", s.handleMetrics},
		{"GET /api/v1/openapi.json", s.handleOpenAPI},
		{"GET /api/v1/tables", s.handleListTables},
		{"POST /api/v1/tables", s.handleCreateTable},
		{"POST /api/v1/tables/preview", s.handlePreview},
		{"GET /api/v1/tables/{name}", s.handleGetTable},
		{"DELETE /api/v1/tables/{name}", s.handleDeleteTable},
		{"GET /api/v1/tables/{name}/status", s.handleTableStatus},
		{"GET /api/v1/tables/{name}/checkpoint", s.handleCheckpoint},
		{"GET /api/v1/tables/{name}/runs", s.handleRuns},
		{"POST /api/v1/tables/{name}/trigger", s.handleTrigger},
		{"POST /api/v1/tables/{name}/pause", s.handlePause},
		{"POST /api/v1/tables/{name}/resume", s.handleResume},
		{"GET /api/v1/connections", s.handleListConnections},
		{"POST /api/v1/connections", s.handlePutConnection},
		{"GET /api/v1/connections/{name}", s.handleGetConnection},
		{"DELETE /api/v1/connections/{name}", s.handleDeleteConnection},
		{"POST /api/v1/connections/{name}/validate", s.handleValidateConnection},
		{"GET /api/v1/connections/{name}/iam-policy", s.handleIAMPolicy},
		{"POST /api/v1/connections/{name}/iam-policy", s.handleIAMPolicyUnsaved},
		{"GET /api/v1/connections/{name}/cloudformation", s.handleCloudFormation},
		{"POST /api/v1/connections/{name}/cloudformation", s.handleCloudFormationUnsaved},
		{"GET /api/v1/connections/{name}/namespaces", s.handleListNamespaces},
		{"GET /api/v1/connections/{name}/namespaces/{ns}/tables", s.handleListCatalogTables},
		{"GET /api/v1/connections/{name}/namespaces/{ns}/tables/{table}", s.handleDescribeTable},
		{"GET /debug/pprof/", pprof.Index},
		{"GET /debug/pprof/profile", pprof.Profile},
		{"GET /debug/pprof/trace", pprof.Trace},
	}
}

// Open listens on addr (use 127.0.0.1:0 for a free port) and serves in
// the background.
func (s *Server) Open(addr string) error {
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

// apiError is the JSON error body.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeErr maps store, watcher, schema and catalog errors to HTTP statuses.
func writeErr(w http.ResponseWriter, err error) {
	writeJSON(w, errStatus(err), apiError{Error: err.Error()})
}

func errStatus(err error) int {
	switch {
	case errors.Is(err, errBadRequest), errors.Is(err, catalog.ErrInvalidConfig),
		errors.Is(err, schema.ErrIllegalOverride), errors.Is(err, schema.ErrInvalidName),
		errors.Is(err, schema.ErrUnsupportedType), errors.Is(err, watcher.ErrBadSchedule),
		errors.Is(err, checkpoint.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, checkpoint.ErrNotFound), errors.Is(err, catalog.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, checkpoint.ErrConflict), errors.Is(err, checkpoint.ErrStale), errors.Is(err, watcher.ErrRunning),
		errors.Is(err, errInUse):
		return http.StatusConflict
	case errors.Is(err, errNoCatalogs):
		return http.StatusServiceUnavailable
	case errors.Is(err, catalog.ErrAccessDenied), errors.Is(err, catalog.ErrBadCredentials),
		errors.Is(err, catalog.ErrUnreachable), errors.Is(err, catalog.ErrTimeout),
		errors.Is(err, catalog.ErrBadMetadata), errors.Is(err, catalog.ErrWrongRegion):
		return http.StatusBadGateway
	}
	return http.StatusInternalServerError
}

// Error categories of the API itself.
var (
	errBadRequest = errors.New("bad request")
	errInUse      = errors.New("in use")
	errNoCatalogs = errors.New("catalog access not configured")
)
