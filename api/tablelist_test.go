package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/redact"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// countingStore counts the store reads a listing makes.
type countingStore struct {
	checkpoint.Store
	overviews, snapshots, perTable atomic.Int64
}

func (s *countingStore) TableOverviews(ctx context.Context, names []string) ([]checkpoint.TableOverview, error) {
	s.overviews.Add(1)
	return s.Store.TableOverviews(ctx, names)
}

func (s *countingStore) SnapshotTables(ctx context.Context) (checkpoint.TableSnapshot, error) {
	s.snapshots.Add(1)
	return s.Store.SnapshotTables(ctx)
}

func (s *countingStore) ListTables(ctx context.Context) ([]checkpoint.Table, error) {
	s.snapshots.Add(1)
	return s.Store.ListTables(ctx)
}

func (s *countingStore) GetCheckpointSummary(ctx context.Context, table string) (checkpoint.CheckpointSummary, error) {
	s.perTable.Add(1)
	return s.Store.GetCheckpointSummary(ctx, table)
}

func (s *countingStore) ListRuns(ctx context.Context, table string, limit int) ([]checkpoint.Run, error) {
	s.perTable.Add(1)
	return s.Store.ListRuns(ctx, table, limit)
}

func (s *countingStore) reset() {
	s.overviews.Store(0)
	s.snapshots.Store(0)
	s.perTable.Store(0)
}

// fleet is a server over seven tables, one per overview situation.
type fleet struct {
	srv   *httptest.Server
	store *countingStore
	mem   *checkpoint.Memory
	sink  string
	now   time.Time
}

const fleetSecret = "tok-9f8e7d-secret"

func newFleet(t *testing.T) *fleet {
	t.Helper()
	ctx := context.Background()
	mem := checkpoint.NewMemory()
	f := &fleet{mem: mem, store: &countingStore{Store: mem}, sink: t.TempDir(), now: time.Now().UTC()}
	add := func(name, conn string, tc map[string]string) {
		t.Helper()
		tbl := checkpoint.Table{Name: name, Connection: conn, Namespace: "sales", Source: name + "_src", TaskConfig: tc,
			SchemaJSON: []byte(`{"schemaName":"` + name + `"}`), TableConfigJSON: []byte(`{"tableName":"` + name + `_OFFLINE"}`)}
		if err := mem.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
	}
	every := func() map[string]string { return map[string]string{"schedule": "0 */5 * * * ?"} }
	add("a_idle", "lake", every())
	add("b_failed", "lake", every())
	add("c_paused", "lake", map[string]string{"schedule.paused": "0 */5 * * * ?"})
	add("d_disabled", "warehouse", map[string]string{"schedule": "0 */5 * * * ?", "enabled": "false"})
	add("e_running", "warehouse", every())
	add("f_backfill", "warehouse", every())
	add("g_abandoned", "lake", every())
	f.commit(t, "a_idle", 100, nil)
	f.commit(t, "b_failed", 20, nil)
	f.commit(t, "f_backfill", 5000, &checkpoint.Backfill{SnapshotID: 9, FilesDone: 2, FilesTotal: 10})
	f.run(t, "a_idle", checkpoint.RunCompleted, "")
	f.run(t, "b_failed", checkpoint.RunFailed, "push segment: HTTP 500 from Pinot (Bearer "+fleetSecret+")\nstack line two")
	f.run(t, "e_running", checkpoint.RunRunning, "")
	f.run(t, "f_backfill", checkpoint.RunRunning, "")
	f.run(t, "g_abandoned", checkpoint.RunAbandoned, "its replica stopped")
	f.observe(t, "a_idle", 1, 0, time.Time{})
	f.observe(t, "b_failed", 7, 3, f.now.Add(-time.Hour))
	f.observe(t, "e_running", 4, 1, f.now.Add(-10*time.Minute))

	red := redact.New()
	red.Set("test", fleetSecret)
	w := watcher.New(watcher.Deps{Store: f.store, Loader: noLoader{}}, watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	opts := api.Options{Redactor: red, Pinot: pinot.NewLocalDir(f.sink), MinScheduleInterval: time.Minute}
	f.srv = httptest.NewServer(api.New(f.store, w, nil, nil, "test", opts).Handler())
	t.Cleanup(f.srv.Close)
	f.store.reset() // the watcher's own reads so far
	return f
}

func (f *fleet) commit(t *testing.T, table string, rows int64, bf *checkpoint.Backfill) {
	t.Helper()
	ctx := context.Background()
	l, err := f.mem.AcquireLease(ctx, table, "t", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cp := checkpoint.Checkpoint{Table: table, SnapshotID: 1, Rows: rows, Backfill: bf,
		Files: map[string]checkpoint.FileState{"s3://b/" + table + "/f1.parquet": {Segments: []string{table + "_0"}, Rows: rows}}}
	if err := f.mem.CommitCheckpoint(ctx, l, cp); err != nil {
		t.Fatal(err)
	}
	if err := f.mem.ReleaseLease(ctx, l); err != nil {
		t.Fatal(err)
	}
}

func (f *fleet) run(t *testing.T, table string, status checkpoint.RunStatus, msg string) {
	t.Helper()
	r := checkpoint.Run{ID: "r-" + table, Table: table, Trigger: "schedule", Status: status, StartedAt: f.now.Add(-time.Minute),
		Error: msg, Log: []checkpoint.RunLogLine{{At: f.now, Level: "ERROR", Msg: "failed with " + fleetSecret,
			Attrs: map[string]string{"header": "Bearer " + fleetSecret}}}}
	if err := f.mem.PutRun(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

func (f *fleet) observe(t *testing.T, table string, latest int64, behind int, oldest time.Time) {
	t.Helper()
	o := checkpoint.Observation{LatestSnapshotID: latest, SnapshotsBehind: behind, OldestUnsyncedAt: oldest, CheckedAt: f.now}
	if err := f.mem.PutObservation(context.Background(), table, o); err != nil {
		t.Fatal(err)
	}
}

// listedTable is what the tests read of a listed table.
type listedTable struct {
	Name      string
	Revision  int64
	State     string
	Rows      int64
	LastError string
	Lag       *struct {
		Snapshots        int
		Seconds          float64
		LatestSnapshotID int64
		CheckedAt        time.Time
	}
	LastRun     *checkpoint.Run
	TaskConfig  map[string]string
	Schema      map[string]any
	TableConfig map[string]any
}

type listAnswer struct {
	Tables                       []listedTable
	Page, PageSize, Total, Pages int
}

func (f *fleet) list(t *testing.T, query string) listAnswer {
	t.Helper()
	code, body := call(t, "GET", f.srv.URL+"/api/v1/tables"+query)
	if code != http.StatusOK {
		t.Fatalf("GET /api/v1/tables%s: %d %s", query, code, body)
	}
	var out listAnswer
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("list answer: %v\n%s", err, body)
	}
	return out
}

func names(a listAnswer) string {
	var out []string
	for _, t := range a.Tables {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

// The overview of each table follows from its stored records: state,
// rows, lag and a scrubbed one-line last error.
func TestServer_ListTablesOverview(t *testing.T) {
	f := newFleet(t)
	got := f.list(t, "")
	if got.Total != 7 || got.Page != 1 || got.PageSize != 100 || got.Pages != 1 || len(got.Tables) != 7 {
		t.Fatalf("page: total %d page %d size %d pages %d tables %d", got.Total, got.Page, got.PageSize, got.Pages, len(got.Tables))
	}
	want := map[string]struct {
		state string
		rows  int64
	}{
		"a_idle": {"IDLE", 100}, "b_failed": {"FAILED", 20}, "c_paused": {"PAUSED", 0}, "d_disabled": {"DISABLED", 0},
		"e_running": {"RUNNING", 0}, "f_backfill": {"BACKFILLING", 5000}, "g_abandoned": {"FAILED", 0},
	}
	by := map[string]listedTable{}
	for _, tb := range got.Tables {
		by[tb.Name] = tb
		if w := want[tb.Name]; tb.State != w.state || tb.Rows != w.rows {
			t.Errorf("%s: state %s rows %d, want %s %d", tb.Name, tb.State, tb.Rows, w.state, w.rows)
		}
	}
	b := by["b_failed"]
	if b.LastError != "push segment: HTTP 500 from Pinot (Bearer REDACTED)" {
		t.Errorf("b_failed lastError %q: want the first line, scrubbed", b.LastError)
	}
	if b.Lag == nil || b.Lag.Snapshots != 3 || b.Lag.LatestSnapshotID != 7 || b.Lag.Seconds < 3600 || b.Lag.Seconds > 3600+600 {
		t.Errorf("b_failed lag %+v: want 3 snapshots, about an hour", b.Lag)
	}
	if b.LastRun == nil || b.LastRun.Log != nil || strings.Contains(b.LastRun.Error, fleetSecret) {
		t.Errorf("b_failed lastRun %+v: want it scrubbed and without its log", b.LastRun)
	}
	if a := by["a_idle"]; a.LastError != "" || a.Lag == nil || a.Lag.Snapshots != 0 || a.Lag.Seconds != 0 {
		t.Errorf("a_idle: lastError %q lag %+v, want none and zero lag", a.LastError, a.Lag)
	}
	if by["c_paused"].Lag != nil || by["g_abandoned"].LastError != "its replica stopped" {
		t.Errorf("c_paused lag %+v (want none: never checked); g_abandoned lastError %q", by["c_paused"].Lag, by["g_abandoned"].LastError)
	}
}

// Pages, filters, search and sort; every bad parameter is named.
func TestServer_ListTablesQuery(t *testing.T) {
	f := newFleet(t)
	cases := []struct{ query, names string }{
		{"?pageSize=3", "a_idle,b_failed,c_paused"},
		{"?pageSize=3&page=3", "g_abandoned"},
		{"?pageSize=3&page=4", ""},
		{"?sort=-name&pageSize=2", "g_abandoned,f_backfill"},
		{"?state=FAILED", "b_failed,g_abandoned"},
		{"?state=paused,disabled", "c_paused,d_disabled"},
		{"?q=WAREHOUSE", "d_disabled,e_running,f_backfill"},
		{"?q=sales.b_failed_src", "b_failed"},
		{"?q=warehouse&state=RUNNING,BACKFILLING", "e_running,f_backfill"},
		{"?sort=-rows&pageSize=3", "f_backfill,a_idle,b_failed"},
		{"?sort=rows&pageSize=2", "c_paused,d_disabled"},
		{"?sort=-lag&pageSize=3", "b_failed,e_running,a_idle"},
		{"?sort=state", "a_idle,e_running,f_backfill,c_paused,d_disabled,b_failed,g_abandoned"},
		{"?sort=-lastRun&state=IDLE,FAILED", "a_idle,b_failed,g_abandoned"},
	}
	for _, c := range cases {
		if got := names(f.list(t, c.query)); got != c.names {
			t.Errorf("%s: %s, want %s", c.query, got, c.names)
		}
	}
	if got := f.list(t, "?pageSize=3&page=4&state=FAILED"); got.Total != 2 || got.Pages != 1 || len(got.Tables) != 0 {
		t.Errorf("past the last page: total %d pages %d tables %d, want 2, 1, none", got.Total, got.Pages, len(got.Tables))
	}
	for _, bad := range []struct{ query, param string }{
		{"?page=0", "page"}, {"?page=x", "page"}, {"?pageSize=1001", "pageSize"}, {"?pageSize=0", "pageSize"},
		{"?state=SLEEPING", "state"}, {"?sort=size", "sort"},
	} {
		code, body := call(t, "GET", f.srv.URL+"/api/v1/tables"+bad.query)
		if code != http.StatusBadRequest || !strings.Contains(body, bad.param+":") {
			t.Errorf("%s: %d %s, want 400 naming %s", bad.query, code, body, bad.param)
		}
	}
}

// A page costs one batched overview read, never a read per table, and
// the table records are read again only after a table changed.
func TestServer_ListTablesBatchedReads(t *testing.T) {
	f := newFleet(t)
	f.list(t, "?pageSize=3")
	f.list(t, "?state=FAILED")
	code, _ := call(t, "GET", f.srv.URL+"/api/v1/summary")
	if code != http.StatusOK {
		t.Fatalf("summary: %d", code)
	}
	if n := f.store.overviews.Load(); n != 3 {
		t.Errorf("%d overview reads for three answers, want 3", n)
	}
	if n := f.store.perTable.Load(); n != 0 {
		t.Errorf("%d per-table reads, want none", n)
	}
	if n := f.store.snapshots.Load(); n != 1 {
		t.Errorf("%d reads of every table record for three answers without a change, want 1", n)
	}
	if code, body := patch(t, f.srv.URL+"/api/v1/tables/a_idle", `{"enabled": false}`, ""); code != http.StatusOK {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	f.store.reset()
	if got := names(f.list(t, "?state=DISABLED")); got != "a_idle,d_disabled" {
		t.Errorf("after PATCH enabled=false, DISABLED tables %s, want a_idle,d_disabled", got)
	}
	if n := f.store.snapshots.Load(); n != 1 {
		t.Errorf("%d reads of every table record after one change, want 1", n)
	}
}

// The summary counts every state (zeros too), the rows and lagging tables.
func TestServer_Summary(t *testing.T) {
	f := newFleet(t)
	code, body := call(t, "GET", f.srv.URL+"/api/v1/summary")
	if code != http.StatusOK {
		t.Fatalf("summary: %d %s", code, body)
	}
	var got struct {
		Tables  int
		States  map[string]int
		Rows    int64
		Lagging int
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"IDLE": 1, "RUNNING": 1, "BACKFILLING": 1, "PAUSED": 1, "DISABLED": 1, "FAILED": 2}
	if got.Tables != 7 || got.Rows != 5120 || got.Lagging != 2 || fmt.Sprint(got.States) != fmt.Sprint(want) {
		t.Fatalf("summary %+v, want 7 tables, 5120 rows, 2 lagging, states %v", got, want)
	}
}

// One table carries its Pinot schema and table config as objects and its
// revision as the ETag; its last run keeps its scrubbed log.
func TestServer_GetTableDocuments(t *testing.T) {
	f := newFleet(t)
	resp, err := http.Get(f.srv.URL + "/api/v1/tables/b_failed")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got listedTable
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Schema["schemaName"] != "b_failed" || got.TableConfig["tableName"] != "b_failed_OFFLINE" {
		t.Errorf("schema %v tableConfig %v", got.Schema, got.TableConfig)
	}
	if resp.Header.Get("ETag") != fmt.Sprintf(`"%d"`, got.Revision) || got.Revision == 0 {
		t.Errorf("ETag %q for revision %d", resp.Header.Get("ETag"), got.Revision)
	}
	if got.LastRun == nil || len(got.LastRun.Log) != 1 || got.LastRun.Log[0].Msg != "failed with REDACTED" ||
		got.LastRun.Log[0].Attrs["header"] != "Bearer REDACTED" {
		t.Errorf("last run log %+v: want one line, scrubbed", got.LastRun)
	}
	code, body := call(t, "GET", f.srv.URL+"/api/v1/tables/b_failed/runs")
	if code != http.StatusOK || strings.Contains(body, fleetSecret) || !strings.Contains(body, `"msg": "failed with REDACTED"`) {
		t.Errorf("runs: %d %s: want the log, scrubbed", code, body)
	}
}

func patch(t *testing.T, url, body, ifMatch string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPatch, url, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
