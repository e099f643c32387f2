package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// noLoader fails every load: these tests exercise the API, not syncing.
type noLoader struct{}

func (noLoader) LoadTable(context.Context, checkpoint.Table) (*watcher.Source, error) {
	return nil, context.Canceled
}

const secret = "s3cr3t-value-never-shown"

func newServer(t *testing.T) (*httptest.Server, checkpoint.Store) {
	t.Helper()
	ctx := context.Background()
	store := checkpoint.NewMemory()
	if err := store.PutConnection(ctx, checkpoint.Connection{Name: "lake", Type: "sql",
		Props: map[string]string{"uri": "cat.db"}, Secrets: map[string]string{"password": secret}}); err != nil {
		t.Fatal(err)
	}
	tbl := checkpoint.Table{Name: "orders", Connection: "lake", Namespace: "sales", Source: "orders",
		TaskConfig: map[string]string{"schedule": "0 */5 * * * ?"}}
	if err := store.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}}, watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(store, w, nil, nil, "test").Handler())
	t.Cleanup(srv.Close)
	return srv, store
}

func call(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if method != "GET" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServer_Tables(t *testing.T) {
	srv, _ := newServer(t)
	code, body := call(t, "GET", srv.URL+"/api/v1/tables")
	if code != 200 || !strings.Contains(body, `"name": "orders"`) || !strings.Contains(body, `"source": "sales.orders"`) {
		t.Fatalf("%d %s", code, body)
	}
	code, body = call(t, "GET", srv.URL+"/api/v1/tables/nope")
	if code != 404 || !strings.Contains(body, "nope") {
		t.Fatalf("unknown table: %d %s", code, body)
	}
	code, _ = call(t, "GET", srv.URL+"/api/v1/tables/orders/checkpoint")
	if code != 404 {
		t.Fatalf("no checkpoint yet must be 404, got %d", code)
	}
	code, body = call(t, "GET", srv.URL+"/api/v1/tables/orders/runs?limit=0")
	if code != 400 || !strings.Contains(body, "limit") {
		t.Fatalf("bad limit: %d %s", code, body)
	}
	code, body = call(t, "GET", srv.URL+"/api/v1/tables/orders/runs")
	if code != 200 || strings.Join(strings.Fields(body), "") != `{"runs":[]}` {
		t.Fatalf("runs before a first run: %d %s, want an empty list", code, body)
	}
}

func TestServer_PauseResume(t *testing.T) {
	srv, store := newServer(t)
	code, body := call(t, "POST", srv.URL+"/api/v1/tables/orders/pause")
	if code != 200 || !strings.Contains(body, `"schedule.paused": "0 */5 * * * ?"`) {
		t.Fatalf("pause: %d %s", code, body)
	}
	_, body = call(t, "GET", srv.URL+"/api/v1/tables/orders/status")
	var st watcher.TableStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.State != watcher.StatePaused {
		t.Fatalf("status after pause: %s", body)
	}
	code, body = call(t, "POST", srv.URL+"/api/v1/tables/orders/resume")
	if code != 200 || !strings.Contains(body, `"schedule": "0 */5 * * * ?"`) {
		t.Fatalf("resume: %d %s", code, body)
	}
	tbl, _ := store.GetTable(context.Background(), "orders")
	if tbl.TaskConfig["schedule"] != "0 */5 * * * ?" || tbl.TaskConfig["schedule.paused"] != "" {
		t.Fatalf("stored task config after resume: %v", tbl.TaskConfig)
	}
}

func TestServer_TriggerRecordsFailedRun(t *testing.T) {
	srv, store := newServer(t)
	code, body := call(t, "POST", srv.URL+"/api/v1/tables/orders/trigger")
	if code != 202 || !strings.Contains(body, "runId") {
		t.Fatalf("trigger: %d %s", code, body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runs, _ := store.ListRuns(context.Background(), "orders", 1)
		if len(runs) == 1 && runs[0].Status == checkpoint.RunFailed {
			if !strings.Contains(runs[0].Error, "sales.orders") {
				t.Fatalf("run error must name the source: %q", runs[0].Error)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("triggered run never finished")
}

// I7: connection secrets never leave the API; only their key names do.
func TestServer_ConnectionsHideSecrets(t *testing.T) {
	srv, _ := newServer(t)
	for _, path := range []string{"/api/v1/connections", "/api/v1/connections/lake", "/api/v1/tables", "/metrics"} {
		code, body := call(t, "GET", srv.URL+path)
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		if strings.Contains(body, secret) {
			t.Fatalf("%s leaks a secret: %s", path, body)
		}
	}
	_, body := call(t, "GET", srv.URL+"/api/v1/connections/lake")
	if !strings.Contains(body, `"password"`) {
		t.Fatalf("secret key names should be listed: %s", body)
	}
}

func TestServer_StatusPageAndHealth(t *testing.T) {
	srv, _ := newServer(t)
	code, body := call(t, "GET", srv.URL+"/")
	if code != 200 || !strings.Contains(body, "<title>floe status</title>") || !strings.Contains(body, `<script type="module" src="app.js">`) {
		t.Fatalf("status page: %d", code)
	}
	// The page is ES modules: browsers run them only when served as JavaScript.
	for file, want := range map[string]string{"app.js": "./overview.js", "overview.js": "/api/v1/tables", "wizard.js": "/api/v1/connections"} {
		resp, err := http.Get(srv.URL + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(string(b), want) {
			t.Fatalf("%s: %d %s", file, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	code, body = call(t, "GET", srv.URL+"/healthz")
	if code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("healthz: %d %s", code, body)
	}
	code, body = call(t, "GET", srv.URL+"/metrics")
	if code != 200 || !strings.Contains(body, "floe_tables 1") {
		t.Fatalf("metrics: %d %s", code, body)
	}
}
