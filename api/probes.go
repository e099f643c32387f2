package api

import (
	"net/http"

	"github.com/floehq/floe/internal/buildinfo"
)

// Drain marks the process as stopping: from now on /healthz answers 503
// "draining", so that a load balancer or Kubernetes (the readiness probe)
// sends no new requests here, while every route still answers the ones
// that come. It cannot be undone; the process exits after draining.
func (s *Server) Drain() { s.draining.Store(true) }

// handleHealth is the readiness check: 200 while the checkpoint store
// answers and the process is not draining, 503 otherwise.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining", "version": s.version})
		return
	}
	if err := s.store.health(r.Context()); err != nil {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unhealthy", "error": s.scrub(err.Error(), nil)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": s.version})
}

// handleLive is the liveness check: 200 while the process serves HTTP. It
// reads no store, so an outage of Redis (which a restart would not cure)
// does not get the process restarted; it answers "draining" while the
// process stops.
func (s *Server) handleLive(w http.ResponseWriter, _ *http.Request) {
	status := "ok"
	if s.draining.Load() {
		status = "draining"
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": status, "version": s.version})
}

// handleVersion answers what the binary says about itself.
func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request) {
	info := s.opts.Build
	if info == (buildinfo.Info{}) {
		info = buildinfo.Info{Version: s.version, Commit: buildinfo.Unknown, Date: buildinfo.Unknown,
			GoVersion: buildinfo.Unknown, Platform: buildinfo.Unknown}
	}
	writeJSON(w, http.StatusOK, info)
}
