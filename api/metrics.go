package api

import (
	"net/http"

	"github.com/floehq/floe/metrics"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if err := s.store.health(r.Context()); err != nil {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unhealthy", "error": s.scrub(err.Error(), nil)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": s.version})
}

// handleMetrics serves the Prometheus registry (Options.Metrics). A scrape
// reads no store: per-table series are set by the watcher as runs end.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	s.opts.Metrics.ServeHTTP(w, r)
}

// defaultMetrics is a registry of the API's own for a server built without
// Options.Metrics: floe_up, floe_tables (the watcher's tables) and the Go
// runtime and process metrics.
func defaultMetrics(w Watcher) http.Handler {
	reg := metrics.New()
	reg.CountTables(func() int { return len(w.Status()) })
	return reg.Handler()
}
