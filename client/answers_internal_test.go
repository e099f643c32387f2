package client

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/notify"
	"github.com/floehq/floe/watcher"
)

// failingLoader reaches no catalog: a triggered run fails, and is recorded.
type failingLoader struct{}

func (failingLoader) LoadTable(context.Context, checkpoint.Table) (*watcher.Source, error) {
	return nil, errors.New("no catalog in this test")
}

// lastEvents is the notifier's memory of the last announcement per table.
type lastEvents map[string]notify.Seen

func (lastEvents) Webhook(context.Context, string, notify.Event, time.Time) (bool, time.Duration, error) {
	return false, 0, nil
}

func (l lastEvents) LastEvent(table string) (notify.Seen, bool) {
	s, ok := l[table]
	return s, ok
}

// seedStore fills a memory store with one table whose records set every
// field the API shows: checkpoint with a backfill, runs with builders, a
// schema change and log lines, a lag observation, field ids.
func seedStore(t *testing.T, ctx context.Context) *checkpoint.Memory {
	t.Helper()
	store := checkpoint.NewMemory()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.PutConnection(ctx, checkpoint.Connection{Name: "lake", Type: "sql", Props: map[string]string{"uri": "cat.db"}}))
	must(store.CreateTable(ctx, checkpoint.Table{Name: "orders", Connection: "lake", Namespace: "sales", Source: "orders",
		TaskConfig: map[string]string{"schedule": "0 0 1 1 *"}, FieldIDs: map[string]int{"id": 1},
		SchemaJSON: []byte(`{"schemaName":"orders"}`), TableConfigJSON: []byte(`{"tableName":"orders_OFFLINE"}`)}))
	lease, err := store.AcquireLease(ctx, "orders", "seed", time.Minute)
	must(err)
	must(store.CommitCheckpoint(ctx, lease, checkpoint.Checkpoint{Table: "orders", SnapshotID: 7, SequenceNumber: 3,
		MetadataLocation: "s3://lake/sales/orders/metadata/00003.metadata.json", TableUUID: "c0ffee", SchemaID: 1,
		Files:    map[string]checkpoint.FileState{"s3://lake/f1.parquet": {Segments: []string{"orders_0"}, Rows: 10}},
		Backfill: &checkpoint.Backfill{SnapshotID: 8, MetadataLocation: "s3://lake/m8.json", FilesDone: 1, FilesTotal: 2, RunID: "r1"},
		Rows:     10}))
	must(store.ReleaseLease(ctx, lease))
	must(store.PutRun(ctx, checkpoint.Run{ID: "r1", Table: "orders", Trigger: "manual", Status: checkpoint.RunCompleted,
		StartedAt: at, FinishedAt: at.Add(time.Second), FromSnapshotID: 6, SnapshotID: 7, FilesDiscovered: 1,
		SegmentsGenerated: 1, SegmentsDeleted: 1, Rows: 10, Bytes: 100, Error: "one file skipped", Owner: "seed",
		Builders: map[string]int{"seed": 1}, SchemaChange: "add-columns: note",
		Log: []checkpoint.RunLogLine{{At: at, Level: "INFO", Msg: "planned", Attrs: map[string]string{"files": "1"}}}}))
	must(store.PutObservation(ctx, "orders", checkpoint.Observation{LatestSnapshotID: 9, LatestCommittedAt: at,
		SnapshotsBehind: 2, OldestUnsyncedAt: at, CheckedAt: at}))
	return store
}

// K4: every call of the client decodes what a real floe API answers with
// its unknown fields refused: the client's types hold every field the server
// sends (and a field the server gains without the client fails here).
func TestClient_DecodesRealAnswersStrictly(t *testing.T) {
	ctx := t.Context()
	store := seedStore(t, ctx)
	w := watcher.New(watcher.Deps{Store: store, Loader: failingLoader{}},
		watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	events := lastEvents{"orders": {Via: "webhook", ReceivedAt: at, Event: notify.Event{Kind: "webhook", ID: "e1", Time: at,
		Region: "eu-west-1", Account: "123456789012", Catalog: "123456789012", Namespace: "sales", Table: "orders",
		MetadataLocation: "s3://lake/sales/orders/metadata/00004.metadata.json"}}}
	srv := httptest.NewServer(api.New(store, w, nil, nil, "test", api.Options{Notifier: events}).Handler())
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.strict = true

	page, err := c.ListTables(ctx, ListOptions{})
	if err != nil || len(page.Tables) != 1 || page.Tables[0].LastRun == nil || page.Tables[0].Lag == nil {
		t.Fatalf("ListTables = %+v, %v", page, err)
	}
	if all, err := c.AllTables(ctx, ListOptions{}); err != nil || len(all) != 1 {
		t.Fatalf("AllTables = %+v, %v", all, err)
	}
	tbl, err := c.Table(ctx, "orders")
	if err != nil || tbl.Checkpoint == nil || tbl.Checkpoint.Backfill == nil || tbl.LastEvent == nil || len(tbl.Schema) == 0 {
		t.Fatalf("Table = %+v, %v", tbl, err)
	}
	runs, err := c.Runs(ctx, "orders", 0)
	if err != nil || len(runs) != 1 || len(runs[0].Log) != 1 {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	if rec, err := c.Pause(ctx, "orders"); err != nil || rec.Name != "orders" {
		t.Fatalf("Pause = %+v, %v", rec, err)
	}
	if rec, err := c.Resume(ctx, "orders"); err != nil || rec.Name != "orders" {
		t.Fatalf("Resume = %+v, %v", rec, err)
	}
	id, err := c.Trigger(ctx, "orders")
	if err != nil || id == "" {
		t.Fatalf("Trigger = %q, %v", id, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	run, found, err := c.WaitRun(wctx, "orders", id, WaitOptions{Every: 5 * time.Millisecond})
	if err != nil || !found || run.Status != RunFailed {
		t.Fatalf("WaitRun = %+v, %t, %v", run, found, err)
	}
	if st, err := c.Status(ctx, "orders"); err != nil || st.Table != "orders" {
		t.Fatalf("Status = %+v, %v", st, err)
	}
}
