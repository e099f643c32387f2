package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// boolParam reads an optional true/false query parameter, naming it when
// it is neither.
func boolParam(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%w: %s: want true or false, got %q", errBadRequest, name, v)
	}
	return b, nil
}

// handleDeleteTable removes floe's registration of a table: its record,
// checkpoint, run history, lease and observation; from then on no run of
// it starts on any replica (I8). Pinot is left alone unless
// dropPinotTable=true, which then deletes the Pinot table and its segments
// (and its schema with dropPinotSchema=true). 409 while this replica runs
// the table. A delete that failed at Pinot can be repeated: the missing
// registration is not an error then.
func (s *Server) handleDeleteTable(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	dropTable, err := boolParam(r, "dropPinotTable")
	if err != nil {
		s.writeErr(w, err)
		return
	}
	dropSchema, err := boolParam(r, "dropPinotSchema")
	if err != nil {
		s.writeErr(w, err)
		return
	}
	if dropSchema && !dropTable {
		s.writeErr(w, fmt.Errorf("%w: dropPinotSchema: needs dropPinotTable=true", errBadRequest))
		return
	}
	if dropTable && s.opts.Pinot == nil {
		s.writeErr(w, fmt.Errorf("%w: dropPinotTable: this floe has no Pinot sink to drop tables from", errBadRequest))
		return
	}
	if err := s.deleteRegistration(r, name, dropTable); err != nil {
		s.writeErr(w, err)
		return
	}
	if dropTable {
		if err := s.opts.Pinot.DropTable(r.Context(), name, dropSchema); err != nil {
			s.writeErr(w, fmt.Errorf("%w: table %s was deleted from floe, but dropping it in Pinot failed "+
				"(repeat the DELETE to retry): %w", errPinot, name, err))
			return
		}
	}
	s.log.Info("table deleted", slog.String("table", name), slog.Bool("pinot_table_dropped", dropTable),
		slog.Bool("pinot_schema_dropped", dropSchema))
	w.WriteHeader(http.StatusNoContent)
}

// deleteRegistration deletes the table's record unless this replica runs
// it. A missing table is 404, except when Pinot is to be dropped (a
// repeated delete).
func (s *Server) deleteRegistration(r *http.Request, name string, repeatable bool) error {
	st, err := s.watcher.TableState(r.Context(), name)
	switch {
	case errors.Is(err, checkpoint.ErrNotFound) && repeatable:
		return nil
	case err != nil:
		return err
	case st.State == watcher.StateRunning || st.State == watcher.StateBackfilling:
		return fmt.Errorf("delete table %s: %w (run %s); pause it and retry", name, watcher.ErrRunning, st.RunningRunID)
	}
	if err := s.watcher.DeleteTable(r.Context(), name); err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return err
	}
	return nil
}
