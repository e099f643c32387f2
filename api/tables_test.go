package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// racedStore loses every compare-and-set of a table: right before each
// UpdateTable, another writer (another replica) changes the table.
type racedStore struct {
	checkpoint.Store
}

func (s racedStore) UpdateTable(ctx context.Context, t checkpoint.Table) (checkpoint.Table, error) {
	cur, err := s.Store.GetTable(ctx, t.Name)
	if err != nil {
		return checkpoint.Table{}, err
	}
	cur.TaskConfig["touched"] = "by another replica"
	if err := s.Store.PutTable(ctx, cur); err != nil {
		return checkpoint.Table{}, err
	}
	return s.Store.UpdateTable(ctx, t)
}

// Pause and resume never overwrite a concurrent edit: when they keep
// losing the compare-and-set they answer 409 and name the table, and the
// other writer's edit stands.
func TestServer_PauseLostRaceIsConflict(t *testing.T) {
	ctx := context.Background()
	mem := checkpoint.NewMemory()
	store := racedStore{Store: mem}
	if err := mem.CreateTable(ctx, checkpoint.Table{Name: "orders", TaskConfig: map[string]string{"schedule": "@hourly"}}); err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}}, watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	srv := httptest.NewServer(api.New(store, w, nil, nil, "test").Handler())
	t.Cleanup(srv.Close)
	for _, op := range []string{"pause", "resume"} {
		code, body := call(t, "POST", srv.URL+"/api/v1/tables/orders/"+op)
		if code != http.StatusConflict || !strings.Contains(body, "orders") || !strings.Contains(body, "revision") {
			t.Fatalf("%s losing every race: %d %s, want 409 naming the table and revisions", op, code, body)
		}
	}
	got, err := mem.GetTable(ctx, "orders")
	if err != nil || got.TaskConfig["touched"] == "" || got.TaskConfig["schedule"] != "@hourly" {
		t.Fatalf("stored table %+v (%v): the other writer's edit must stand and nothing be paused", got.TaskConfig, err)
	}
}

// A table's view shows the Iceberg field id each Pinot column reads, so an
// operator can tell which field feeds a column after a rename.
func TestServer_TableShowsFieldBindings(t *testing.T) {
	srv, store := newServer(t)
	if _, err := checkpoint.UpdateTableFunc(t.Context(), store, "orders", 1, func(tbl *checkpoint.Table) error {
		tbl.FieldIDs = map[string]int{"id": 1, "city": 2}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	code, body := call(t, "GET", srv.URL+"/api/v1/tables/orders")
	var v struct {
		FieldIDs map[string]int `json:"fieldIds"`
	}
	if err := json.Unmarshal([]byte(body), &v); code != 200 || err != nil || v.FieldIDs["city"] != 2 || v.FieldIDs["id"] != 1 {
		t.Fatalf("GET /api/v1/tables/orders: %d %s (%v); want fieldIds id→1, city→2", code, body, err)
	}
}
