package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

type connView struct {
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Props      map[string]string `json:"props"`
	SecretKeys []string          `json:"secretKeys"`
}

func TestServer_ConnectionLifecycle(t *testing.T) {
	e := newOnboardEnv(t)
	var c connView
	e.want("POST", "/api/v1/connections", e.connection(), http.StatusCreated, &c)
	if c.Name != "lake" || c.Type != "sql" || c.Props["uri"] != e.lake.dbPath || !slices.Equal(c.SecretKeys, []string{"token"}) {
		t.Fatalf("created connection view: %+v", c)
	}
	stored, err := e.store.GetConnection(context.Background(), "lake")
	if err != nil || stored.Secrets["token"] != lakeToken || stored.CreatedAt.IsZero() {
		t.Fatalf("stored connection: %v %v", stored.Secrets["token"] == lakeToken, err)
	}
	// Replacing keeps the creation time and answers 200.
	e.want("POST", "/api/v1/connections", e.connection(), http.StatusOK, &c)
	again, _ := e.store.GetConnection(context.Background(), "lake")
	if !again.CreatedAt.Equal(stored.CreatedAt) {
		t.Fatalf("replace changed createdAt: %v -> %v", stored.CreatedAt, again.CreatedAt)
	}
	e.want("GET", "/api/v1/connections/lake", nil, http.StatusOK, &c)
	// A credential written in props is refused, naming where it belongs,
	// without repeating it.
	for prop, val := range map[string]string{
		"uri":                  "postgres://floe:" + lakeSecret + "@127.0.0.1:1/db",
		"s3.secret-access-key": lakeSecret,
		"header.Authorization": "Bearer " + lakeSecret,
	} {
		props := map[string]string{"uri": "postgres://floe@127.0.0.1:1/db", prop: val}
		out := e.want("POST", "/api/v1/connections", map[string]any{"name": "pg", "type": "sql", "props": props}, http.StatusBadRequest, nil)
		if !strings.Contains(out, "connections.pg.props."+prop) || !strings.Contains(out, "give it as secrets.") || strings.Contains(out, lakeSecret) {
			t.Errorf("credential in props.%s: %s", prop, out)
		}
	}
	// So is a secret too short to be told apart from other words.
	out := e.want("POST", "/api/v1/connections", map[string]any{"name": "pg", "type": "sql",
		"props": map[string]string{"uri": "postgres://floe@127.0.0.1:1/db"}, "secrets": map[string]string{"password": "e"}}, http.StatusBadRequest, nil)
	if !strings.Contains(out, "connections.pg.secrets.password: is 1 characters") {
		t.Errorf("short secret: %s", out)
	}
	// A record stored before the rule is shown with its credential as a
	// secret key, never its value.
	if err := e.store.PutConnection(context.Background(), checkpoint.Connection{Name: "pg", Type: "sql",
		Props: map[string]string{"uri": "postgres://floe:" + lakeSecret + "@127.0.0.1:1/db", "token": lakeSecret}}); err != nil {
		t.Fatal(err)
	}
	e.want("GET", "/api/v1/connections/pg", nil, http.StatusOK, &c)
	if c.Props["uri"] != "postgres://floe@127.0.0.1:1/db" || c.Props["token"] != "" || !slices.Equal(c.SecretKeys, []string{"password", "token"}) {
		t.Fatalf("old record shown as %+v", c)
	}
	if out := e.want("GET", "/api/v1/connections", nil, http.StatusOK, nil); strings.Contains(out, lakeSecret) {
		t.Fatalf("connection list holds the secret: %s", out)
	}
	e.want("DELETE", "/api/v1/connections/pg", nil, http.StatusNoContent, nil)
	e.want("DELETE", "/api/v1/connections/lake", nil, http.StatusNoContent, nil)
	e.want("GET", "/api/v1/connections/lake", nil, http.StatusNotFound, nil)
	e.want("DELETE", "/api/v1/connections/lake", nil, http.StatusNotFound, nil)
}

type validation struct {
	OK    bool `json:"ok"`
	Steps []struct {
		Name, Status, Detail, Error string
	} `json:"steps"`
}

func TestServer_ValidateAndBrowse(t *testing.T) {
	e := newOnboardEnv(t)
	e.addConnection()
	var rep validation
	e.want("POST", "/api/v1/connections/lake/validate", nil, http.StatusOK, &rep)
	last := rep.Steps[len(rep.Steps)-1]
	if !rep.OK || last.Status != "ok" || !strings.Contains(last.Detail, "250 rows") {
		t.Fatalf("validation report: %+v", rep)
	}

	type nsPage struct {
		Namespaces []string `json:"namespaces"`
		Next       string   `json:"nextPageToken"`
	}
	var p1, p2 nsPage
	e.want("GET", "/api/v1/connections/lake/namespaces?pageSize=1", nil, http.StatusOK, &p1)
	if len(p1.Namespaces) != 1 || p1.Next == "" {
		t.Fatalf("first page: %+v", p1)
	}
	e.want("GET", "/api/v1/connections/lake/namespaces?pageSize=1&pageToken="+p1.Next, nil, http.StatusOK, &p2)
	if got := append(p1.Namespaces, p2.Namespaces...); !slices.Equal(got, []string{"sales", "web"}) || p2.Next != "" {
		t.Fatalf("pages: %+v %+v", p1, p2)
	}

	var tables struct {
		Tables []struct{ Namespace, Name string } `json:"tables"`
	}
	e.want("GET", "/api/v1/connections/lake/namespaces/sales/tables", nil, http.StatusOK, &tables)
	if len(tables.Tables) != 1 || tables.Tables[0].Namespace != "sales" || tables.Tables[0].Name != "orders" {
		t.Fatalf("tables: %+v", tables)
	}
	e.want("GET", "/api/v1/connections/lake/namespaces/web/tables", nil, http.StatusOK, &tables)
	if len(tables.Tables) != 0 {
		t.Fatalf("web has no tables: %+v", tables)
	}

	var info struct {
		SnapshotCount   int `json:"snapshotCount"`
		CurrentSnapshot struct {
			Summary map[string]string `json:"summary"`
		} `json:"currentSnapshot"`
		Schema struct {
			Fields []struct{ Name string } `json:"fields"`
		} `json:"schema"`
	}
	e.want("GET", "/api/v1/connections/lake/namespaces/sales/tables/orders", nil, http.StatusOK, &info)
	var names []string
	for _, f := range info.Schema.Fields {
		names = append(names, f.Name)
	}
	if info.SnapshotCount != 1 || info.CurrentSnapshot.Summary["added-records"] != "250" ||
		!slices.Equal(names, []string{"id", "ts", "city", "amount"}) {
		t.Fatalf("describe: %+v", info)
	}
}

type previewAnswer struct {
	Schema      spec.Schema      `json:"schema"`
	TableConfig spec.TableConfig `json:"tableConfig"`
	TimeColumn  string           `json:"timeColumn"`
	MultiValue  []string         `json:"multiValue"`
	Columns     []struct {
		Name      string         `json:"name"`
		DataType  spec.DataType  `json:"dataType"`
		FieldType spec.FieldType `json:"fieldType"`
		Lossy     string         `json:"lossy"`
	} `json:"columns"`
}

func TestServer_Preview(t *testing.T) {
	e := newOnboardEnv(t)
	e.addConnection()
	var p previewAnswer
	e.want("POST", "/api/v1/tables/preview", map[string]any{"connection": "lake", "namespace": "sales", "table": "orders",
		"overrides": map[string]string{"id": "METRIC", "amount": "DIMENSION"}}, http.StatusOK, &p)

	// The preview is what schema.Infer says for the table with those
	// overrides, column by column.
	ov, err := schema.ParseOverrides([]string{"amount=DIMENSION", "id=METRIC"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := schema.Infer(ordersSchema, schema.Options{Name: "sales_orders", Overrides: ov})
	if err != nil {
		t.Fatal(err)
	}
	if p.Schema.Name != "sales_orders" || p.TableConfig.TableName != "sales_orders" || p.TimeColumn != want.TimeColumn ||
		p.TimeColumn != "ts" || p.TableConfig.SegmentsConfig.TimeColumnName != "ts" || len(p.Columns) != len(want.Columns) {
		t.Fatalf("preview: %+v", p)
	}
	for i, c := range want.Columns {
		got := p.Columns[i]
		if got.Name != c.Field.Name || got.DataType != c.Field.DataType || got.FieldType != c.Field.FieldType || got.Lossy != c.Lossy {
			t.Errorf("column %d: got %+v, want %+v (lossy %q)", i, got, c.Field, c.Lossy)
		}
	}
	if f, ok := p.Schema.Field("id"); !ok || f.FieldType != spec.Metric {
		t.Errorf("override id=METRIC not in schema: %+v", p.Schema)
	}
	if task := p.TableConfig.Task.TaskTypeConfigsMap[spec.SyncTaskType]; task["sourceTable"] != "sales.orders" || task["connection"] != "lake" {
		t.Errorf("task config: %v", task)
	}
	// Nothing was registered.
	if tables, _ := e.store.ListTables(context.Background()); len(tables) != 0 {
		t.Fatalf("preview registered %d tables", len(tables))
	}
}

// The whole onboarding: connection, validate, create the table; the first
// run converts every row into real segment tarballs and checkpoints.
func TestServer_CreateTableFirstRun(t *testing.T) {
	e := newOnboardEnv(t)
	e.addConnection()
	body := map[string]any{"connection": "lake", "namespace": "sales", "table": "orders", "name": "orders",
		"schedule": "0 0 0 1 1 ?", "taskConfig": map[string]string{"continueOnFileError": "false"}}
	var created struct {
		Name       string            `json:"name"`
		Source     string            `json:"source"`
		TaskConfig map[string]string `json:"taskConfig"`
	}
	e.want("POST", "/api/v1/tables", body, http.StatusCreated, &created)
	if created.Name != "orders" || created.Source != "sales.orders" || created.TaskConfig["schedule"] != "0 0 0 1 1 ?" ||
		created.TaskConfig["continueOnFileError"] != "false" {
		t.Fatalf("created: %+v", created)
	}
	e.want("POST", "/api/v1/tables", body, http.StatusConflict, nil)

	run := waitRun(t, e.store, "orders")
	if run.Status != checkpoint.RunCompleted || run.Rows != int64(e.lake.rows) || run.Trigger != "first" {
		t.Fatalf("first run: %+v", run)
	}
	var cp struct {
		Summary checkpoint.CheckpointSummary
		Files   []struct {
			Path string
			checkpoint.FileState
		}
		Total int
	}
	e.want("GET", "/api/v1/tables/orders/checkpoint?pageSize=1000", nil, http.StatusOK, &cp)
	if cp.Summary.SnapshotID != run.SnapshotID || len(cp.Files) != e.lake.dataFiles || cp.Total != e.lake.dataFiles {
		t.Fatalf("checkpoint: snapshot %d (run %d), %d files of %d (lake %d)", cp.Summary.SnapshotID, run.SnapshotID,
			len(cp.Files), cp.Total, e.lake.dataFiles)
	}
	var rows int64
	for _, f := range cp.Files {
		rows += f.Rows
		for _, seg := range f.Segments {
			if _, err := os.Stat(filepath.Join(e.segDir, "orders", seg+".tar.gz")); err != nil {
				t.Errorf("segment %s not pushed: %v", seg, err)
			}
		}
	}
	if rows != int64(e.lake.rows) {
		t.Fatalf("checkpoint rows %d, want %d", rows, e.lake.rows)
	}
	var status struct{ State string }
	e.want("GET", "/api/v1/tables/orders/status", nil, http.StatusOK, &status)
	if status.State != "IDLE" {
		t.Fatalf("status after the first run: %+v", status)
	}

	// The connection is in use; the table goes first, then the connection.
	if _, out := e.do("DELETE", "/api/v1/connections/lake", nil); !strings.Contains(out, "orders") {
		t.Fatalf("deleting a used connection must name the table: %s", out)
	}
	e.want("DELETE", "/api/v1/connections/lake", nil, http.StatusConflict, nil)
	e.want("DELETE", "/api/v1/tables/orders", nil, http.StatusNoContent, nil)
	e.want("GET", "/api/v1/tables/orders", nil, http.StatusNotFound, nil)
	if _, err := e.store.GetCheckpointSummary(context.Background(), "orders"); err == nil {
		t.Fatal("checkpoint survived the table's deletion")
	}
	if _, err := os.Stat(filepath.Join(e.segDir, "orders")); err != nil {
		t.Fatalf("deleting the registration must leave Pinot's segments: %v", err)
	}
	e.want("DELETE", "/api/v1/connections/lake", nil, http.StatusNoContent, nil)
}

// A schema and table config given in the request are stored as given.
func TestServer_CreateTableGivenSchema(t *testing.T) {
	e := newOnboardEnv(t)
	e.addConnection()
	var p previewAnswer
	e.want("POST", "/api/v1/tables/preview", map[string]any{"connection": "lake", "namespace": "sales", "table": "orders",
		"name": "given"}, http.StatusOK, &p)
	var fields []spec.FieldSpec
	for _, f := range p.Schema.Fields {
		if f.Name == "amount" {
			f.FieldType = spec.Metric
		}
		fields = append(fields, f)
	}
	p.Schema.Fields = fields
	e.want("POST", "/api/v1/tables", map[string]any{"connection": "lake", "namespace": "sales", "table": "orders",
		"name": "given", "schema": p.Schema, "tableConfig": p.TableConfig, "schedule": "0 0 0 1 1 ?"}, http.StatusCreated, nil)
	tbl, err := e.store.GetTable(context.Background(), "given")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tbl.SchemaJSON), `"metricFieldSpecs":[{"name":"amount"`) {
		t.Fatalf("stored schema lost the given METRIC: %s", tbl.SchemaJSON)
	}
	// The schedule lands in both the task config and the stored table
	// config's task block.
	var stc spec.TableConfig
	if err := json.Unmarshal(tbl.TableConfigJSON, &stc); err != nil {
		t.Fatal(err)
	}
	if tbl.TaskConfig["schedule"] != "0 0 0 1 1 ?" || stc.Task.TaskTypeConfigsMap[spec.SyncTaskType]["schedule"] != "0 0 0 1 1 ?" {
		t.Fatalf("schedule: task config %v, table config %+v", tbl.TaskConfig, stc.Task)
	}
	if run := waitRun(t, e.store, "given"); run.Status != checkpoint.RunCompleted || run.Rows != int64(e.lake.rows) {
		t.Fatalf("first run: %+v", run)
	}
}

// waitRun waits for the table's first run to finish.
func waitRun(t *testing.T, store checkpoint.Store, table string) checkpoint.Run {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		runs, err := store.ListRuns(context.Background(), table, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 && runs[0].Status != checkpoint.RunRunning {
			return runs[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the first run of %s never finished", table)
	return checkpoint.Run{}
}
