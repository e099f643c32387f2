package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// errPrecondition: the table's revision is not the one If-Match named
// (412 Precondition Failed).
var errPrecondition = errors.New("precondition failed")

// patchRequest is the body of PATCH /api/v1/tables/{name}: any subset of
// the sync task config fields that are safe to change on a live table.
type patchRequest struct {
	Schedule            *string `json:"schedule"`
	Enabled             *bool   `json:"enabled"`
	ContinueOnFileError *bool   `json:"continueOnFileError"`
}

func (p patchRequest) empty() bool {
	return p.Schedule == nil && p.Enabled == nil && p.ContinueOnFileError == nil
}

// apply changes tc as asked. A paused table keeps its schedule stashed:
// a new schedule replaces the stashed one and the table stays paused.
func (p patchRequest) apply(tc map[string]string) map[string]string {
	out := make(map[string]string, len(tc)+1)
	for k, v := range tc {
		out[k] = v
	}
	if p.Schedule != nil {
		key := watcher.KeySchedule
		if watcher.Paused(tc) {
			key = watcher.KeySchedulePaused
		}
		out[key] = strings.TrimSpace(*p.Schedule)
	}
	if p.Enabled != nil {
		out[watcher.KeyEnabled] = strconv.FormatBool(*p.Enabled)
	}
	if p.ContinueOnFileError != nil {
		out[watcher.KeyContinueOnFileError] = strconv.FormatBool(*p.ContinueOnFileError)
	}
	return out
}

// check validates the request's fields, naming the bad one.
func (s *Server) checkPatch(p patchRequest) error {
	if p.empty() {
		return fmt.Errorf("%w: nothing to change: give schedule, enabled or continueOnFileError", errBadRequest)
	}
	if p.Schedule == nil {
		return nil
	}
	tc := map[string]string{watcher.KeySchedule: strings.TrimSpace(*p.Schedule)}
	if err := watcher.ValidateTaskConfig(tc); err != nil {
		return fmt.Errorf("%w: schedule: %w", errBadRequest, trimKey(err))
	}
	if err := watcher.CheckScheduleInterval(tc, s.opts.MinScheduleInterval); err != nil {
		return fmt.Errorf("%w: schedule: %w", errBadRequest, trimKey(err))
	}
	return nil
}

// trimKey drops the "taskConfig.schedule: " the watcher's checks put in
// front, so the answer names the PATCH field once.
func trimKey(err error) error {
	return prefixedErr{msg: strings.TrimPrefix(err.Error(), "taskConfig."+watcher.KeySchedule+": "), err: err}
}

type prefixedErr struct {
	msg string
	err error
}

func (e prefixedErr) Error() string { return e.msg }
func (e prefixedErr) Unwrap() error { return e.err }

// ifMatch reads the If-Match header: the revision the client edits, or -1
// when absent. Quoted (an ETag) or bare.
func ifMatch(r *http.Request) (int64, error) {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" {
		return -1, nil
	}
	v = strings.Trim(strings.TrimPrefix(v, "W/"), `"`)
	rev, err := strconv.ParseInt(v, 10, 64)
	if err != nil || rev < 0 {
		return 0, fmt.Errorf("%w: If-Match: want a table revision, got %q", errBadRequest, r.Header.Get("If-Match"))
	}
	return rev, nil
}

// handlePatchTable changes a table's sync task config through the same
// revisioned read-modify-write as pause and resume (watcher.UpdateTable):
// the stored record decides on every replica (I8), and a concurrent edit
// is never overwritten. With If-Match, the edit applies only to that
// revision (412 otherwise).
func (s *Server) handlePatchTable(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	want, err := ifMatch(r)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	var req patchRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		s.writeErr(w, err)
		return
	}
	if err := s.checkPatch(req); err != nil {
		s.writeErr(w, err)
		return
	}
	t, err := s.watcher.UpdateTable(r.Context(), name, func(t *checkpoint.Table) error {
		if want >= 0 && t.Revision != want {
			return fmt.Errorf("%w: table %s is at revision %d, If-Match named %d", errPrecondition, name, t.Revision, want)
		}
		t.TaskConfig = req.apply(t.TaskConfig)
		return nil
	})
	if err != nil {
		s.writeErr(w, err)
		return
	}
	s.writeTable(w, r, t)
}
