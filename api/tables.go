package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/notify"
	"github.com/floehq/floe/watcher"
)

// tableView is a table as the API shows it: its record, this replica's
// scheduling status, and the overview derived from its stored records.
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
	State      string                        `json:"state"`
	Rows       int64                         `json:"rows"`
	Lag        *lagView                      `json:"lag,omitempty"`
	LastError  string                        `json:"lastError,omitempty"`
	// LastEvent is the last change notification this replica received.
	LastEvent *notify.Seen `json:"lastEvent,omitempty"`
	// Schema and TableConfig are the Pinot documents of the table (GET of
	// one table only).
	Schema      json.RawMessage `json:"schema,omitempty"`
	TableConfig json.RawMessage `json:"tableConfig,omitempty"`
}

// rowView is the view of a listed table; st is nil when this replica's
// watcher does not know the table yet.
func (s *Server) rowView(rw row, st *watcher.TableStatus) tableView {
	t := rw.t
	v := tableView{Name: t.Name, Revision: t.Revision, Connection: t.Connection, Source: t.Namespace + "." + t.Source,
		TaskConfig: t.TaskConfig, FieldIDs: t.FieldIDs, CreatedAt: t.CreatedAt, Checkpoint: rw.ov.Summary,
		State: rw.o.state, Rows: rw.o.rows, Lag: rw.o.lag, LastError: s.scrub(rw.o.lastError, nil),
		LastEvent: s.lastEvent(t.Name)}
	if st != nil {
		v.Status = *st
		v.Status.Error = s.scrub(st.Error, nil)
	} else {
		v.Status = watcher.TableStatus{Table: t.Name, State: watcher.StateIdle, Revision: t.Revision}
	}
	if rw.ov.LastRun != nil {
		run := s.scrubRun(*rw.ov.LastRun)
		v.LastRun = &run
	}
	return v
}

// scrubRun removes every known secret from a run's error and log (I7):
// runs stored by older replicas, or before a secret was known, too.
func (s *Server) scrubRun(run checkpoint.Run) checkpoint.Run {
	run.Error = s.scrub(run.Error, nil)
	lines := make([]checkpoint.RunLogLine, len(run.Log))
	for i, l := range run.Log {
		l.Msg = s.scrub(l.Msg, nil)
		if l.Attrs != nil {
			attrs := make(map[string]string, len(l.Attrs))
			for k, v := range l.Attrs {
				attrs[k] = s.scrub(v, nil)
			}
			l.Attrs = attrs
		}
		lines[i] = l
	}
	run.Log = lines
	if len(lines) == 0 {
		run.Log = nil
	}
	return run
}

// handleGetTable answers one table with its Pinot schema and table
// config, and its revision as the ETag (for PATCH's If-Match).
func (s *Server) handleGetTable(w http.ResponseWriter, r *http.Request) {
	t, err := s.store.GetTable(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	s.writeTable(w, r, t)
}

// writeTable answers t's view with its revision as the ETag.
func (s *Server) writeTable(w http.ResponseWriter, r *http.Request, t checkpoint.Table) {
	v, err := s.tableView(r, t)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	w.Header().Set("ETag", etag(t.Revision))
	writeJSON(w, http.StatusOK, v)
}

// tableView reads one table's status and overview.
func (s *Server) tableView(r *http.Request, t checkpoint.Table) (tableView, error) {
	st, err := s.watcher.TableState(r.Context(), t.Name)
	if err != nil {
		return tableView{}, err
	}
	rows, err := s.withOverviews(r, []row{{t: &t}}, map[string]*watcher.TableStatus{t.Name: &st}, time.Now())
	if err != nil {
		return tableView{}, err
	}
	v := s.rowView(rows[0], &st)
	v.Schema, v.TableConfig = jsonObject(t.SchemaJSON), jsonObject(t.TableConfigJSON)
	return v, nil
}

// jsonObject returns a stored JSON document as is, nil when empty or not
// valid JSON (it is then left out of the answer).
func jsonObject(raw []byte) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return nil
	}
	return raw
}

// etag is the entity tag of a table record: its revision.
func etag(rev int64) string { return `"` + strconv.FormatInt(rev, 10) + `"` }

func (s *Server) handleTableStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.watcher.TableState(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	st.Error = s.scrub(st.Error, nil)
	writeJSON(w, http.StatusOK, st)
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
		runs[i] = s.scrubRun(runs[i]) // runs stored by older replicas too (I7)
	}
	if runs == nil {
		runs = []checkpoint.Run{} // a list, also before the first run
	}
	writeJSON(w, http.StatusOK, runList{Runs: runs})
}

// runList is a table's newest runs, newest first.
type runList struct {
	Runs []checkpoint.Run `json:"runs"`
}

// triggerAnswer names the run a trigger started.
type triggerAnswer struct {
	RunID string `json:"runId"`
}

// taskConfigAnswer is a table's sync task config after a pause or resume.
type taskConfigAnswer struct {
	Name       string            `json:"name"`
	Revision   int64             `json:"revision"`
	TaskConfig map[string]string `json:"taskConfig"`
}

func (s *Server) handleTrigger(w http.ResponseWriter, r *http.Request) {
	id, err := s.watcher.Trigger(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, triggerAnswer{RunID: id})
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
	writeJSON(w, http.StatusOK, taskConfigAnswer{Name: t.Name, Revision: t.Revision, TaskConfig: t.TaskConfig})
}

func (s *Server) handleResume(w http.ResponseWriter, r *http.Request) {
	t, err := s.watcher.Resume(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, taskConfigAnswer{Name: t.Name, Revision: t.Revision, TaskConfig: t.TaskConfig})
}
