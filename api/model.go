package api

import (
	"encoding/json"
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

// pinotModel returns the Pinot schema and table config of a new table:
// the ones in the request when given, inferred from the Iceberg schema
// otherwise. Given documents must name the table.
func pinotModel(sc *iceberg.Schema, req createRequest, name string) (*spec.Schema, *spec.TableConfig, error) {
	topts := schema.TableOptions{Schedule: req.Schedule, Task: req.TaskConfig}
	var res *schema.Result
	if len(req.Schema) > 0 {
		var ps spec.Schema
		if err := json.Unmarshal(req.Schema, &ps); err != nil {
			return nil, nil, fmt.Errorf("%w: schema: %w", errBadRequest, err)
		}
		if ps.Name != name {
			return nil, nil, fmt.Errorf("%w: schema.schemaName: %q, want the table name %q", errBadRequest, ps.Name, name)
		}
		res = &schema.Result{Schema: &ps, TimeColumn: timeColumnOf(&ps, req.TimeColumn, req.NoTimeColumn)}
	} else {
		r, _, err := infer(sc, req.previewRequest, topts)
		if err != nil {
			return nil, nil, err
		}
		res = r
	}
	if len(req.TableConfig) == 0 {
		topts.Source, topts.Connection = req.tableName(), req.Connection
		return res.Schema, schema.TableConfig(res, topts), nil
	}
	var tc spec.TableConfig
	if err := json.Unmarshal(req.TableConfig, &tc); err != nil {
		return nil, nil, fmt.Errorf("%w: tableConfig: %w", errBadRequest, err)
	}
	if tc.TableName != name && tc.TableName != name+"_OFFLINE" {
		return nil, nil, fmt.Errorf("%w: tableConfig.tableName: %q, want %q", errBadRequest, tc.TableName, name)
	}
	if tc.TableType != "" && tc.TableType != "OFFLINE" {
		return nil, nil, fmt.Errorf("%w: tableConfig.tableType: %q, floe writes OFFLINE tables only", errBadRequest, tc.TableType)
	}
	return res.Schema, &tc, nil
}

// timeColumnOf picks the time column of a given schema: the requested one
// or the first DATE_TIME field.
func timeColumnOf(s *spec.Schema, want string, none bool) string {
	if none {
		return ""
	}
	if want != "" {
		return want
	}
	for _, f := range s.Fields {
		if f.FieldType == spec.DateTime {
			return f.Name
		}
	}
	return ""
}

// ExternalTable builds the store record of an external table from its
// Pinot schema and table config; the sync task config is the table
// config's ExternalTableSyncTask block. namespace joins levels with '.'.
func ExternalTable(name, conn, namespace, source string, s *spec.Schema, tc *spec.TableConfig) (checkpoint.Table, error) {
	sj, err := json.Marshal(s)
	if err != nil {
		return checkpoint.Table{}, fmt.Errorf("encode Pinot schema of %s: %w", name, err)
	}
	tj, err := json.Marshal(tc)
	if err != nil {
		return checkpoint.Table{}, fmt.Errorf("encode table config of %s: %w", name, err)
	}
	task := map[string]string{}
	if tc.Task != nil {
		for k, v := range tc.Task.TaskTypeConfigsMap[spec.SyncTaskType] {
			task[k] = v
		}
	}
	return checkpoint.Table{Name: name, Connection: conn, Namespace: namespace, Source: source,
		TaskConfig: task, SchemaJSON: sj, TableConfigJSON: tj}, nil
}
