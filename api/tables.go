package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// tableView is a table as the API shows it.
type tableView struct {
	Name       string            `json:"name"`
	Revision   int64             `json:"revision"`
	Connection string            `json:"connection"`
	Source     string            `json:"source"`
	TaskConfig map[string]string `json:"taskConfig"`
	// FieldIDs: the Iceberg field id each Pinot column reads (a renamed
	// field keeps feeding its column; schema/doc.go, evolution).
	FieldIDs   map[string]int                `json:"fieldIds,omitempty"`
	Status     watcher.TableStatus           `json:"status"`
	Checkpoint *checkpoint.CheckpointSummary `json:"checkpoint,omitempty"`
	LastRun    *checkpoint.Run               `json:"lastRun,omitempty"`
	CreatedAt  time.Time                     `json:"createdAt"`
}

func (s *Server) view(r *http.Request, t checkpoint.Table) (tableView, error) {
	v := tableView{Name: t.Name, Revision: t.Revision, Connection: t.Connection, Source: t.Namespace + "." + t.Source,
		TaskConfig: t.TaskConfig, FieldIDs: t.FieldIDs, CreatedAt: t.CreatedAt}
	st, err := s.watcher.TableState(r.Context(), t.Name)
	if err != nil {
		return v, err
	}
	st.Error = s.scrub(st.Error, nil)
	v.Status = st
	cp, err := s.store.GetCheckpointSummary(r.Context(), t.Name)
	switch {
	case err == nil:
		v.Checkpoint = &cp
	case !errors.Is(err, checkpoint.ErrNotFound):
		return v, err
	}
	runs, err := s.store.ListRuns(r.Context(), t.Name, 1)
	if err != nil {
		return v, err
	}
	if len(runs) > 0 {
		runs[0].Error = s.scrub(runs[0].Error, nil)
		v.LastRun = &runs[0]
	}
	return v, nil
}

func (s *Server) handleListTables(w http.ResponseWriter, r *http.Request) {
	tables, err := s.store.ListTables(r.Context())
	if err != nil {
		s.writeErr(w, err)
		return
	}
	out := make([]tableView, 0, len(tables))
	for _, t := range tables {
		v, err := s.view(r, t)
		if err != nil {
			s.writeErr(w, err)
			return
		}
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tables": out})
}

func (s *Server) handleGetTable(w http.ResponseWriter, r *http.Request) {
	t, err := s.store.GetTable(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	v, err := s.view(r, t)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) handleTableStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.watcher.TableState(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	st.Error = s.scrub(st.Error, nil)
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) handleCheckpoint(w http.ResponseWriter, r *http.Request) {
	cp, err := s.store.GetCheckpoint(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, cp)
}

func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > checkpoint.RunHistoryLimit {
			writeJSON(w, http.StatusBadRequest, apiError{Error: "limit: want 1-" + strconv.Itoa(checkpoint.RunHistoryLimit)})
			return
		}
		limit = n
	}
	name := r.PathValue("name")
	if _, err := s.store.GetTable(r.Context(), name); err != nil {
		s.writeErr(w, err)
		return
	}
	runs, err := s.store.ListRuns(r.Context(), name, limit)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	for i := range runs {
		runs[i].Error = s.scrub(runs[i].Error, nil) // runs stored by older replicas too (I7)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": runs})
}

func (s *Server) handleTrigger(w http.ResponseWriter, r *http.Request) {
	id, err := s.watcher.Trigger(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"runId": id})
}

// handlePause answers once the paused record is stored: from then on no
// run of the table starts on any replica (I8). 409 when concurrent edits
// kept winning the compare-and-set.
func (s *Server) handlePause(w http.ResponseWriter, r *http.Request) {
	t, err := s.watcher.Pause(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": t.Name, "revision": t.Revision, "taskConfig": t.TaskConfig})
}

func (s *Server) handleResume(w http.ResponseWriter, r *http.Request) {
	t, err := s.watcher.Resume(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": t.Name, "revision": t.Revision, "taskConfig": t.TaskConfig})
}
