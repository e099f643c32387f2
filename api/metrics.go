package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/floehq/floe/checkpoint"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if err := s.store.health(r.Context()); err != nil {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unhealthy", "error": s.scrub(err.Error(), nil)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": s.version})
}

// handleMetrics writes Prometheus text format: per table, the last run's
// status, rows, segments and the checkpointed snapshot.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	tables, err := s.store.ListTables(r.Context())
	if err != nil {
		s.writeErr(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintf(w, "# HELP floe_up Whether floe is serving.\n# TYPE floe_up gauge\nfloe_up 1\n")
	fmt.Fprintf(w, "# HELP floe_uptime_seconds Seconds since start.\n# TYPE floe_uptime_seconds gauge\nfloe_uptime_seconds %d\n", int(time.Since(s.started).Seconds()))
	fmt.Fprintf(w, "# HELP floe_tables Registered external tables.\n# TYPE floe_tables gauge\nfloe_tables %d\n", len(tables))
	fmt.Fprint(w, "# HELP floe_last_run_success 1 if the table's last run completed.\n# TYPE floe_last_run_success gauge\n")
	fmt.Fprint(w, "# HELP floe_last_run_rows Rows converted by the table's last run.\n# TYPE floe_last_run_rows gauge\n")
	fmt.Fprint(w, "# HELP floe_checkpoint_files Data files in the table's checkpoint.\n# TYPE floe_checkpoint_files gauge\n")
	for _, t := range tables {
		runs, err := s.store.ListRuns(r.Context(), t.Name, 1)
		if err == nil && len(runs) > 0 {
			ok := 0
			if runs[0].Status == checkpoint.RunCompleted {
				ok = 1
			}
			fmt.Fprintf(w, "floe_last_run_success{table=%q} %d\n", t.Name, ok)
			fmt.Fprintf(w, "floe_last_run_rows{table=%q} %d\n", t.Name, runs[0].Rows)
		}
		if cp, err := s.store.GetCheckpointSummary(r.Context(), t.Name); err == nil {
			fmt.Fprintf(w, "floe_checkpoint_files{table=%q} %d\n", t.Name, cp.FileCount)
		}
	}
}
