package api

import (
	"net/http"

	"github.com/floehq/floe/metrics"
)

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
