package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/watcher"
)

// PATCH changes the three safe fields through the revisioned store write;
// a paused table keeps its new schedule stashed; If-Match guards the
// revision; every refusal names the field.
func TestServer_PatchTable(t *testing.T) {
	f := newFleet(t)
	ctx := context.Background()
	url := f.srv.URL + "/api/v1/tables/a_idle"
	before, err := f.mem.GetTable(ctx, "a_idle")
	if err != nil {
		t.Fatal(err)
	}
	code, body := patch(t, url, `{"schedule": "*/10 * * * *", "continueOnFileError": true}`, fmt.Sprint(before.Revision))
	if code != http.StatusOK || !strings.Contains(body, `"state": "IDLE"`) {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	after, err := f.mem.GetTable(ctx, "a_idle")
	if err != nil {
		t.Fatal(err)
	}
	if after.TaskConfig["schedule"] != "*/10 * * * *" || after.TaskConfig["continueOnFileError"] != "true" ||
		after.Revision <= before.Revision || !strings.Contains(body, fmt.Sprintf(`"revision": %d`, after.Revision)) {
		t.Fatalf("stored after PATCH: %+v rev %d (was %d)", after.TaskConfig, after.Revision, before.Revision)
	}
	// The old revision no longer matches: 412, nothing written.
	code, body = patch(t, url, `{"enabled": false}`, fmt.Sprintf(`"%d"`, before.Revision))
	if code != http.StatusPreconditionFailed || !strings.Contains(body, "a_idle") {
		t.Fatalf("stale If-Match: %d %s, want 412 naming the table", code, body)
	}
	if got, _ := f.mem.GetTable(ctx, "a_idle"); got.Revision != after.Revision {
		t.Fatalf("a refused PATCH wrote revision %d", got.Revision)
	}

	code, body = patch(t, f.srv.URL+"/api/v1/tables/c_paused", `{"schedule": "0 * * * *"}`, "")
	paused, _ := f.mem.GetTable(ctx, "c_paused")
	if code != http.StatusOK || paused.TaskConfig["schedule.paused"] != "0 * * * *" || paused.TaskConfig["schedule"] != "" ||
		!strings.Contains(body, `"state": "PAUSED"`) {
		t.Fatalf("PATCH schedule of a paused table: %d %s; stored %+v", code, body, paused.TaskConfig)
	}

	for _, bad := range []struct{ body, field string }{
		{`{"schedule": "every minute"}`, "schedule"},
		{`{"schedule": "* * * * * ?"}`, "schedule"}, // every second: below the minimum interval
		{`{"enabled": "yes"}`, "enabled"},
		{`{"maxRowsPerSegment": 5}`, "maxRowsPerSegment"},
		{`{}`, "schedule, enabled or continueOnFileError"},
	} {
		code, body := patch(t, url, bad.body, "")
		if code != http.StatusBadRequest || !strings.Contains(body, bad.field) {
			t.Errorf("PATCH %s: %d %s, want 400 naming %s", bad.body, code, body, bad.field)
		}
	}
	if code, body := patch(t, url, `{"enabled": true}`, "x1"); code != http.StatusBadRequest || !strings.Contains(body, "If-Match") {
		t.Errorf("bad If-Match: %d %s", code, body)
	}
	if code, _ := patch(t, f.srv.URL+"/api/v1/tables/nope", `{"enabled": true}`, ""); code != http.StatusNotFound {
		t.Errorf("PATCH of a missing table: %d, want 404", code)
	}
}

// DELETE leaves Pinot alone unless asked; dropPinotTable removes the
// Pinot table too and can be repeated; a running table is 409.
func TestServer_DeleteTableDropsPinot(t *testing.T) {
	f := newFleet(t)
	ctx := context.Background()
	sink := pinot.NewLocalDir(f.sink)
	for _, name := range []string{"a_idle", "b_failed"} {
		if err := sink.EnsureTable(ctx, &spec.Schema{Name: name}, &spec.TableConfig{TableName: name}); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(f.sink, name)); return err == nil }

	if code, body := call(t, "DELETE", f.srv.URL+"/api/v1/tables/a_idle"); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	if !exists("a_idle") {
		t.Fatal("DELETE without dropPinotTable removed the Pinot table")
	}
	if code, body := call(t, "DELETE", f.srv.URL+"/api/v1/tables/b_failed?dropPinotTable=true"); code != http.StatusNoContent {
		t.Fatalf("DELETE dropPinotTable: %d %s", code, body)
	}
	if exists("b_failed") {
		t.Fatal("DELETE dropPinotTable=true left the Pinot table")
	}
	if _, err := f.mem.GetTable(ctx, "b_failed"); !isNotFound(err) {
		t.Fatalf("table record after DELETE: %v", err)
	}
	if _, err := sink.ListSegments(ctx, "b_failed"); !isMissing(err) {
		t.Fatalf("ListSegments after drop: %v, want ErrTableMissing", err)
	}
	if code, body := call(t, "DELETE", f.srv.URL+"/api/v1/tables/b_failed?dropPinotTable=true"); code != http.StatusNoContent {
		t.Fatalf("repeated DELETE dropPinotTable: %d %s, want 204", code, body)
	}
	if code, _ := call(t, "DELETE", f.srv.URL+"/api/v1/tables/b_failed"); code != http.StatusNotFound {
		t.Fatalf("repeated plain DELETE: %d, want 404", code)
	}
	for _, bad := range []struct{ query, param string }{
		{"?dropPinotTable=maybe", "dropPinotTable"}, {"?dropPinotSchema=true", "dropPinotSchema"},
	} {
		code, body := call(t, "DELETE", f.srv.URL+"/api/v1/tables/c_paused"+bad.query)
		if code != http.StatusBadRequest || !strings.Contains(body, bad.param) {
			t.Errorf("DELETE %s: %d %s, want 400 naming %s", bad.query, code, body, bad.param)
		}
	}
	if got := names(f.list(t, "")); got != "c_paused,d_disabled,e_running,f_backfill,g_abandoned" {
		t.Errorf("listed after deletes: %s", got)
	}
}

func isNotFound(err error) bool {
	return err != nil && strings.Contains(err.Error(), checkpoint.ErrNotFound.Error())
}

func isMissing(err error) bool {
	return err != nil && strings.Contains(err.Error(), pinot.ErrTableMissing.Error())
}

// The checkpoint answers its summary and one page of files sorted by
// path, optionally only the paths holding q.
func TestServer_CheckpointPage(t *testing.T) {
	f := newFleet(t)
	ctx := context.Background()
	files := map[string]checkpoint.FileState{}
	for i := range 250 {
		part := "even"
		if i%2 == 1 {
			part = "odd"
		}
		files[fmt.Sprintf("s3://b/t/%s/f%03d.parquet", part, i)] = checkpoint.FileState{Segments: []string{fmt.Sprintf("s_%d", i)}, Rows: int64(i)}
	}
	l, err := f.mem.AcquireLease(ctx, "a_idle", "t", 60e9)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.mem.CommitCheckpoint(ctx, l, checkpoint.Checkpoint{Table: "a_idle", SnapshotID: 77, Files: files}); err != nil {
		t.Fatal(err)
	}
	code, body := call(t, "GET", f.srv.URL+"/api/v1/tables/a_idle/checkpoint?page=2&pageSize=100")
	if code != http.StatusOK || !strings.Contains(body, `"snapshotId": 77`) || !strings.Contains(body, `"total": 250`) ||
		!strings.Contains(body, `"pages": 3`) || !strings.Contains(body, `"path": "s3://b/t/even/f200.parquet"`) ||
		strings.Contains(body, "f198.parquet") {
		t.Fatalf("page 2: %d %.600s", code, body)
	}
	first := strings.Index(body, `"path": "s3://b/t/even/f200.parquet"`)
	if next := strings.Index(body, `"path": "s3://b/t/even/f202.parquet"`); next < first {
		t.Fatalf("files not sorted by path")
	}
	code, body = call(t, "GET", f.srv.URL+"/api/v1/tables/a_idle/checkpoint?q=ODD/F00&pageSize=10")
	if code != http.StatusOK || !strings.Contains(body, `"total": 5`) || strings.Contains(body, "/even/") {
		t.Fatalf("q=ODD/F00: %d %.600s", code, body)
	}
	if code, body := call(t, "GET", f.srv.URL+"/api/v1/tables/a_idle/checkpoint?pageSize=5000"); code != http.StatusBadRequest ||
		!strings.Contains(body, "pageSize") {
		t.Fatalf("pageSize=5000: %d %s", code, body)
	}
}

// blockingLoader holds every load until release is closed, so a run stays
// in flight.
type blockingLoader struct {
	loading chan struct{} // closed by the first load
	release chan struct{}
	once    sync.Once
}

func (l *blockingLoader) LoadTable(ctx context.Context, _ checkpoint.Table) (*watcher.Source, error) {
	l.once.Do(func() { close(l.loading) })
	select {
	case <-l.release:
	case <-ctx.Done():
	}
	return nil, context.Canceled
}

// A table this replica is running is not deleted (409), dropPinotTable or
// not, and Pinot keeps it.
func TestServer_DeleteRunningTableConflicts(t *testing.T) {
	ctx := context.Background()
	mem := checkpoint.NewMemory()
	if err := mem.CreateTable(ctx, checkpoint.Table{Name: "orders", TaskConfig: map[string]string{"schedule.paused": "@hourly"}}); err != nil {
		t.Fatal(err)
	}
	sinkDir := t.TempDir()
	sink := pinot.NewLocalDir(sinkDir)
	if err := sink.EnsureTable(ctx, &spec.Schema{Name: "orders"}, &spec.TableConfig{TableName: "orders"}); err != nil {
		t.Fatal(err)
	}
	ld := &blockingLoader{loading: make(chan struct{}), release: make(chan struct{})}
	w := watcher.New(watcher.Deps{Store: mem, Loader: ld}, watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	t.Cleanup(func() { close(ld.release); _ = w.Close(context.Background()) })
	srv := httptest.NewServer(api.New(mem, w, nil, nil, "test", api.Options{Pinot: sink}).Handler())
	t.Cleanup(srv.Close)
	if code, body := call(t, "POST", srv.URL+"/api/v1/tables/orders/trigger"); code != http.StatusAccepted {
		t.Fatalf("trigger: %d %s", code, body)
	}
	<-ld.loading
	for _, q := range []string{"", "?dropPinotTable=true"} {
		code, body := call(t, "DELETE", srv.URL+"/api/v1/tables/orders"+q)
		if code != http.StatusConflict || !strings.Contains(body, "orders") {
			t.Fatalf("DELETE%s of a running table: %d %s, want 409 naming it", q, code, body)
		}
	}
	if _, err := mem.GetTable(ctx, "orders"); err != nil {
		t.Fatalf("table record after refused deletes: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sinkDir, "orders")); err != nil {
		t.Fatalf("Pinot table after refused deletes: %v", err)
	}
}
