package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"sort"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
	"github.com/floehq/floe/watcher"
)

// previewRequest is the body of POST /api/v1/tables/preview and the
// common part of POST /api/v1/tables.
type previewRequest struct {
	Connection string `json:"connection"`
	// Namespace levels are joined with '.'.
	Namespace string `json:"namespace"`
	Table     string `json:"table"`
	// Name is the Pinot raw table name (default: derived from namespace
	// and table).
	Name string `json:"name,omitempty"`
	// Overrides maps a column to KIND[,KIND...] as in `floe infer
	// -override`: a field type (DIMENSION, METRIC, DATE_TIME[:UNIT]), a
	// Pinot data type (LONG, ...) or FLATTEN.
	Overrides    map[string]string `json:"overrides,omitempty"`
	TimeColumn   string            `json:"timeColumn,omitempty"`
	NoTimeColumn bool              `json:"noTimeColumn,omitempty"`
	Flatten      []string          `json:"flatten,omitempty"`
}

// createRequest is the body of POST /api/v1/tables.
type createRequest struct {
	previewRequest
	Schedule   string            `json:"schedule,omitempty"`
	TaskConfig map[string]string `json:"taskConfig,omitempty"`
	// Schema and TableConfig, when given, are used instead of inferring.
	Schema      json.RawMessage `json:"schema,omitempty"`
	TableConfig json.RawMessage `json:"tableConfig,omitempty"`
}

// columnView is one inferred column for the preview.
type columnView struct {
	Name        string         `json:"name"`
	DataType    spec.DataType  `json:"dataType"`
	FieldType   spec.FieldType `json:"fieldType"`
	SingleValue bool           `json:"singleValue"`
	NotNull     bool           `json:"notNull"`
	Iceberg     string         `json:"icebergType"`
	FieldID     int            `json:"fieldId"`
	Lossy       string         `json:"lossy,omitempty"`
}

// previewView is what POST /api/v1/tables/preview answers.
type previewView struct {
	Schema      *spec.Schema      `json:"schema"`
	TableConfig *spec.TableConfig `json:"tableConfig"`
	Columns     []columnView      `json:"columns"`
	TimeColumn  string            `json:"timeColumn,omitempty"`
	MultiValue  []string          `json:"multiValue"`
}

// check names the first missing required field.
func (p previewRequest) check() error {
	for _, f := range []struct{ name, val string }{
		{"connection", p.Connection}, {"namespace", p.Namespace}, {"table", p.Table},
	} {
		if strings.TrimSpace(f.val) == "" {
			return fmt.Errorf("%w: %s: required", errBadRequest, f.name)
		}
	}
	return errors.Join(checkIdent("namespace", p.Namespace), checkIdent("table", p.Table))
}

func (p previewRequest) tableName() schema.TableName {
	return schema.TableName{Namespace: splitNamespace(p.Namespace), Table: p.Table}
}

func (p previewRequest) pinotName() string {
	if p.Name != "" {
		return p.Name
	}
	return p.tableName().PinotName()
}

// options turns the request into schema.Options; bad overrides name the
// column (schema.ErrIllegalOverride).
func (p previewRequest) options() (schema.Options, error) {
	opts := schema.Options{Name: p.pinotName(), Overrides: map[string]schema.Override{},
		TimeColumn: p.TimeColumn, NoTimeColumn: p.NoTimeColumn}
	cols := make([]string, 0, len(p.Overrides))
	for col := range p.Overrides {
		cols = append(cols, col)
	}
	sort.Strings(cols)
	var args []string
	for _, col := range cols {
		args = append(args, col+"="+p.Overrides[col])
	}
	for _, col := range p.Flatten {
		args = append(args, col+"=FLATTEN")
	}
	ov, err := schema.ParseOverrides(args)
	if err != nil {
		return opts, fmt.Errorf("overrides: %w", err)
	}
	opts.Overrides = ov
	return opts, nil
}

// icebergSchema loads the source table's current schema through its
// connection; the second result is the connection's secrets.
func (s *Server) icebergSchema(r *http.Request, p previewRequest) (*iceberg.Schema, map[string]string, error) {
	if _, err := s.store.GetConnection(r.Context(), p.Connection); errors.Is(err, checkpoint.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w: connection: no connection named %q", errBadRequest, p.Connection)
	}
	cat, secrets, err := s.openCatalog(r, p.Connection)
	if err != nil {
		return nil, secrets, err
	}
	tbl, err := cat.LoadTable(r.Context(), catalog.TableIdent{Namespace: splitNamespace(p.Namespace), Name: p.Table})
	if err != nil {
		return nil, secrets, err
	}
	return tbl.Iceberg.Schema(), secrets, nil
}

// infer runs schema inference and the table config for the request.
func infer(sc *iceberg.Schema, p previewRequest, topts schema.TableOptions) (*schema.Result, *spec.TableConfig, error) {
	opts, err := p.options()
	if err != nil {
		return nil, nil, err
	}
	res, err := schema.Infer(sc, opts)
	if err != nil {
		return nil, nil, err
	}
	topts.Source, topts.Connection = p.tableName(), p.Connection
	return res, schema.TableConfig(res, topts), nil
}

func (s *Server) handlePreview(w http.ResponseWriter, r *http.Request) {
	var req previewRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		s.writeErr(w, err)
		return
	}
	if err := req.check(); err != nil {
		s.writeErr(w, err)
		return
	}
	sc, secrets, err := s.icebergSchema(r, req)
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	res, tc, err := infer(sc, req, schema.TableOptions{})
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	writeJSON(w, http.StatusOK, preview(res, tc))
}

func preview(res *schema.Result, tc *spec.TableConfig) previewView {
	v := previewView{Schema: res.Schema, TableConfig: tc, TimeColumn: res.TimeColumn, MultiValue: res.MultiValue}
	if v.MultiValue == nil {
		v.MultiValue = []string{}
	}
	for _, c := range res.Columns {
		v.Columns = append(v.Columns, columnView{Name: c.Field.Name, DataType: c.Field.DataType,
			FieldType: c.Field.FieldType, SingleValue: c.Field.SingleValue, NotNull: c.Field.NotNull,
			Iceberg: c.Type.String(), FieldID: c.FieldID, Lossy: c.Lossy})
	}
	return v
}

// handleCreateTable registers an external table and starts its first
// run at once (201 with the table; 409 if the name is taken).
func (s *Server) handleCreateTable(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		s.writeErr(w, err)
		return
	}
	t, secrets, err := s.buildTable(r, req)
	if err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	if err := s.watcher.AddTable(r.Context(), t); err != nil {
		s.writeScrubbed(w, err, secrets)
		return
	}
	s.log.Info("table created", slog.String("table", t.Name), slog.String("connection", t.Connection),
		slog.String("source", t.Namespace+"."+t.Source))
	stored, err := s.store.GetTable(r.Context(), t.Name)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	v, err := s.tableView(r, stored)
	if err != nil {
		s.writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, v)
}

// buildTable checks the request and builds the store record: the Pinot
// schema and table config as given, or inferred from the Iceberg table.
func (s *Server) buildTable(r *http.Request, req createRequest) (checkpoint.Table, map[string]string, error) {
	if err := req.check(); err != nil {
		return checkpoint.Table{}, nil, err
	}
	name := req.pinotName()
	if err := schema.ValidatePinotName(name); err != nil {
		return checkpoint.Table{}, nil, fmt.Errorf("name: %w", err)
	}
	if _, err := s.store.GetTable(r.Context(), name); err == nil {
		return checkpoint.Table{}, nil, fmt.Errorf("create table %s: %w", name, checkpoint.ErrConflict)
	}
	sc, secrets, err := s.icebergSchema(r, req.previewRequest)
	if err != nil {
		return checkpoint.Table{}, secrets, err
	}
	ps, tc, err := pinotModel(sc, req, name)
	if err != nil {
		return checkpoint.Table{}, secrets, err
	}
	setTask(tc, req.TaskConfig, req.Schedule)
	t, err := ExternalTable(name, req.Connection, req.Namespace, req.Table, ps, tc)
	if err != nil {
		return checkpoint.Table{}, secrets, err
	}
	if err := watcher.ValidateTaskConfig(t.TaskConfig); err != nil {
		return checkpoint.Table{}, secrets, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	if err := watcher.CheckScheduleInterval(t.TaskConfig, s.opts.MinScheduleInterval); err != nil {
		return checkpoint.Table{}, secrets, err
	}
	return t, secrets, nil
}

// setTask writes the request's task config and schedule into the table
// config's sync task block, so the stored table config and the task
// config the watcher reads agree.
func setTask(tc *spec.TableConfig, task map[string]string, schedule string) {
	if tc.Task == nil {
		tc.Task = &spec.TaskConfig{}
	}
	if tc.Task.TaskTypeConfigsMap == nil {
		tc.Task.TaskTypeConfigsMap = map[string]map[string]string{}
	}
	m := tc.Task.TaskTypeConfigsMap[spec.SyncTaskType]
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, task)
	if schedule != "" {
		m[watcher.KeySchedule] = schedule
	}
	tc.Task.TaskTypeConfigsMap[spec.SyncTaskType] = m
}
