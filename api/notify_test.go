package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/notify"
	"github.com/floehq/floe/watcher"
)

// The webhook: accepted for a table, 404 for an unknown one, 429 with
// Retry-After past the rate, and the table view shows the last event.
func TestServer_Notify(t *testing.T) {
	ctx := context.Background()
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, checkpoint.Table{Name: "orders", Connection: "lake", Namespace: "sales", Source: "orders",
		TaskConfig: map[string]string{"schedule": "0 */5 * * * ?"}}); err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}}, watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	hub := notify.NewHub(store, w, nil, nil, notify.Options{Debounce: time.Hour, MaxDelay: time.Hour, WebhookPerMinute: 2})
	srv := httptest.NewServer(api.New(store, w, nil, nil, "test", api.Options{Notifier: hub}).Handler())
	t.Cleanup(srv.Close)

	post := func(path, body string) (int, string, http.Header) {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, b.String(), resp.Header
	}
	if code, body, _ := post("/api/v1/tables/orders/notify", `{"metadataLocation":"s3://lake/sales/orders/metadata/00002-a.metadata.json"}`); code != http.StatusAccepted || !strings.Contains(body, `"accepted"`) {
		t.Fatalf("notify = %d %s, want 202 accepted", code, body)
	}
	if code, body, _ := post("/api/v1/tables/orders/notify", ""); code != http.StatusAccepted {
		t.Fatalf("notify without a body = %d %s, want 202", code, body)
	}
	code, body, hdr := post("/api/v1/tables/orders/notify", "{}")
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Fatalf("third call in a minute = %d %s (Retry-After %q), want 429 with Retry-After", code, body, hdr.Get("Retry-After"))
	}
	if code, body, _ := post("/api/v1/tables/nosuch/notify", "{}"); code != http.StatusNotFound {
		t.Fatalf("notify of an unknown table = %d %s, want 404", code, body)
	}
	if code, body, _ := post("/api/v1/tables/orders/notify", `{"surprise":1}`); code != http.StatusBadRequest {
		t.Fatalf("unknown body field = %d %s, want 400", code, body)
	}
	if code, body := call(t, "GET", srv.URL+"/api/v1/tables/orders"); code != http.StatusOK ||
		!strings.Contains(body, `"lastEvent"`) || !strings.Contains(body, `"via": "webhook"`) {
		t.Fatalf("table view = %d %s, want its last event", code, body)
	}
}

// Without a Notifier the webhook answers 503.
func TestServer_NotifyNotWired(t *testing.T) {
	srv, _ := newServer(t)
	if code, body := call(t, "POST", srv.URL+"/api/v1/tables/orders/notify"); code != http.StatusServiceUnavailable {
		t.Fatalf("notify = %d %s, want 503", code, body)
	}
}
