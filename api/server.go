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

	"github.com/floehq/floe/checkpoint"
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
}

// Server serves the API.
type Server struct {
	store   checkpoint.Store
	watcher Watcher
	log     *slog.Logger
	version string
	started time.Time
	srv     *http.Server
	ln      net.Listener
}

// New returns a Server; Open starts listening.
func New(store checkpoint.Store, w Watcher, logger *slog.Logger, version string) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{store: store, watcher: w, log: logger, version: version, started: time.Now()}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	return s
}

// Handler returns the routes (tests use it with httptest).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /metrics", s.handleMetrics)
	mux.HandleFunc("GET /api/v1/tables", s.handleListTables)
	mux.HandleFunc("GET /api/v1/tables/{name}", s.handleGetTable)
	mux.HandleFunc("GET /api/v1/tables/{name}/status", s.handleTableStatus)
	mux.HandleFunc("GET /api/v1/tables/{name}/checkpoint", s.handleCheckpoint)
	mux.HandleFunc("GET /api/v1/tables/{name}/runs", s.handleRuns)
	mux.HandleFunc("POST /api/v1/tables/{name}/trigger", s.handleTrigger)
	mux.HandleFunc("POST /api/v1/tables/{name}/pause", s.handlePause)
	mux.HandleFunc("POST /api/v1/tables/{name}/resume", s.handleResume)
	mux.HandleFunc("GET /api/v1/connections", s.handleListConnections)
	mux.HandleFunc("GET /api/v1/connections/{name}", s.handleGetConnection)
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /", http.FileServerFS(static))
	return mux
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

// writeErr maps store and watcher errors to HTTP statuses.
func writeErr(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, checkpoint.ErrConflict), errors.Is(err, watcher.ErrRunning):
		status = http.StatusConflict
	case errors.Is(err, errBadRequest):
		status = http.StatusBadRequest
	}
	writeJSON(w, status, apiError{Error: err.Error()})
}

var errBadRequest = errors.New("bad request")
