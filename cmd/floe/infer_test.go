package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floehq/floe/schema"
)

// demoMetadata creates the demo lake's table and returns its metadata.json.
func demoMetadata(t *testing.T) string {
	t.Helper()
	return demoMetadataIn(t, t.TempDir())
}

func demoMetadataIn(t *testing.T, dir string) string {
	t.Helper()
	l, err := openDemoLake(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tbl, err := l.cat.LoadTable(t.Context(), l.ident)
	if err != nil {
		t.Fatal(err)
	}
	return tbl.MetadataLocation()
}

func TestCmdInfer(t *testing.T) {
	meta := demoMetadata(t)
	var out, errOut bytes.Buffer
	err := cmdInfer(t.Context(), []string{"-metadata", meta, "-table", "demo.`event-log`",
		"-override", "ts=LONG", "-override", "amount=DIMENSION"}, &out, &errOut)
	if err != nil {
		t.Fatalf("cmdInfer: %v\n%s", err, errOut.String())
	}
	var got struct {
		Schema struct {
			SchemaName         string `json:"schemaName"`
			NullHandling       bool   `json:"enableColumnBasedNullHandling"`
			DateTimeFieldSpecs []struct {
				Name, DataType, Format string
			} `json:"dateTimeFieldSpecs"`
		} `json:"schema"`
		TableConfig struct {
			TableName      string `json:"tableName"`
			SegmentsConfig struct {
				TimeColumnName string `json:"timeColumnName"`
			} `json:"segmentsConfig"`
			Task struct {
				TaskTypeConfigsMap map[string]map[string]string `json:"taskTypeConfigsMap"`
			} `json:"task"`
		} `json:"tableConfig"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	wantName := schema.TableName{Namespace: []string{"demo"}, Table: "event-log"}.PinotName()
	if got.Schema.SchemaName != wantName || got.TableConfig.TableName != wantName || !got.Schema.NullHandling {
		t.Errorf("names %q/%q, want %q", got.Schema.SchemaName, got.TableConfig.TableName, wantName)
	}
	dt := got.Schema.DateTimeFieldSpecs
	if len(dt) != 1 || dt[0].Name != "ts" || dt[0].DataType != "LONG" || dt[0].Format != "1:MICROSECONDS:EPOCH" {
		t.Errorf("dateTimeFieldSpecs = %+v", dt)
	}
	task := got.TableConfig.Task.TaskTypeConfigsMap["ExternalTableSyncTask"]
	if got.TableConfig.SegmentsConfig.TimeColumnName != "ts" || task["schedule"] != schema.DefaultSchedule ||
		task["sourceTable"] != "demo.`event-log`" {
		t.Errorf("table config = %s", out.String())
	}
	if !strings.Contains(errOut.String(), "time column: ts") {
		t.Errorf("stderr = %q", errOut.String())
	}
}

func TestCmdInfer_errors(t *testing.T) {
	meta := demoMetadata(t)
	tests := []struct {
		args []string
		is   error
		msg  string
	}{
		{[]string{"-metadata", meta}, nil, "-table is required"},
		{[]string{"-table", "demo.events"}, nil, "exactly one of"},
		{[]string{"-metadata", meta, "-table", "events"}, schema.ErrInvalidName, "namespace.table"},
		{[]string{"-metadata", meta, "-table", "demo.events", "-override", "city=METRIC"}, schema.ErrIllegalOverride, `"city"`},
		{[]string{"-metadata", meta, "-table", "demo.events", "-override", "ts=FOO"}, schema.ErrIllegalOverride, "FOO"},
		{[]string{"-metadata", meta, "-table", "demo.events", "-flatten", "city"}, schema.ErrIllegalOverride, "only struct"},
		{[]string{"-metadata", meta, "-table", "demo.events", "-time-column", "city"}, schema.ErrIllegalOverride, "DATE_TIME columns: ts"},
		{[]string{"-metadata", meta + ".missing", "-table", "demo.events"}, nil, "load metadata"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := cmdInfer(t.Context(), tt.args, &out, &errOut)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %v mentioning %q", err, tt.is, tt.msg)
			}
			if out.Len() != 0 {
				t.Errorf("printed output on error: %s", out.String())
			}
		})
	}
}

// TestCmdInfer_connection loads the table through a connection declared in
// a config file (SQL catalog on sqlite) instead of a metadata file.
func TestCmdInfer_connection(t *testing.T) {
	dir := t.TempDir()
	demoMetadataIn(t, dir)
	cfg := filepath.Join(dir, "floe.yaml")
	yaml := "store:\n  path: " + filepath.Join(dir, "store.db") + "\nsecurity:\n  localRoots: [" + dir + "]\n" +
		"connections:\n  demo:\n    type: sql\n    props:\n      uri: " + filepath.Join(dir, "catalog.db") + "\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := cmdInfer(t.Context(), []string{"-config", cfg, "-connection", "demo", "-table", "demo.events"}, &out, &errOut); err != nil {
		t.Fatalf("cmdInfer: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), `"schemaName": "demo_events"`) || !strings.Contains(out.String(), `"connection": "demo"`) {
		t.Errorf("output = %s", out.String())
	}
	err := cmdInfer(t.Context(), []string{"-config", cfg, "-connection", "nosuch", "-table", "demo.events"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown connection: err = %v", err)
	}
}
