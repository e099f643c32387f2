//go:build integration

package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/watcher"
)

// replica is one floe API and watcher on a shared real Redis.
type replica struct {
	srv   *httptest.Server
	w     *watcher.Watcher
	store *checkpoint.Redis
}

func newReplica(t *testing.T, url, owner string) *replica {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoint.NewRedis(ctx, checkpoint.RedisOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}},
		watcher.Options{Owner: owner, LeaseTTL: time.Minute, WorkDir: t.TempDir(), RefreshInterval: time.Hour})
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(store, w, nil, nil, "test").Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = w.Close(context.Background())
		_ = store.Close()
	})
	return &replica{srv: srv, w: w, store: store}
}

// A PATCH answered by one replica is what every replica acts on: the
// other replica's watcher applies the announced revision (it refreshes
// only hourly here), and both list the table in its new state.
func TestServer_PatchReachesOtherReplica(t *testing.T) {
	url := testpeer.StartRedis(t)
	ctx := context.Background()
	a, b := newReplica(t, url, "a"), newReplica(t, url, "b")
	tbl := checkpoint.Table{Name: "orders", Connection: "lake", Namespace: "sales", Source: "orders",
		TaskConfig: map[string]string{"schedule.paused": "0 */5 * * * ?"}} // paused: no run starts
	if err := a.store.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	code, body := patch(t, a.srv.URL+"/api/v1/tables/orders", `{"enabled": false, "schedule": "0 0 * * *"}`, "")
	if code != http.StatusOK {
		t.Fatalf("PATCH on replica a: %d %s", code, body)
	}
	stored, err := b.store.GetTable(ctx, "orders")
	if err != nil || stored.TaskConfig["enabled"] != "false" || stored.TaskConfig["schedule.paused"] != "0 0 * * *" {
		t.Fatalf("stored after PATCH: %+v (%v)", stored.TaskConfig, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for held := int64(-1); held != stored.Revision; time.Sleep(20 * time.Millisecond) {
		// Status reads only what b holds (TableState would read the store).
		for _, st := range b.w.Status() {
			if st.Table == "orders" {
				held = st.Revision
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica b still acts on revision %d, want %d", held, stored.Revision)
		}
	}
	for _, r := range []*replica{a, b} {
		f := &fleet{srv: r.srv}
		got := f.list(t, "")
		if len(got.Tables) != 1 || got.Tables[0].State != "PAUSED" || got.Tables[0].Revision != stored.Revision ||
			got.Tables[0].TaskConfig["enabled"] != "false" {
			t.Fatalf("a replica lists %+v, want orders PAUSED at revision %d", got.Tables, stored.Revision)
		}
	}
	// A stale If-Match is refused on the other replica as well.
	code, body = patch(t, b.srv.URL+"/api/v1/tables/orders", `{"enabled": true}`, fmt.Sprint(stored.Revision-1))
	if code != http.StatusPreconditionFailed {
		t.Fatalf("stale If-Match on replica b: %d %s, want 412", code, body)
	}
}
