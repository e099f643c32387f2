package pinot_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/pinot"
)

func TestEndpoint(t *testing.T) {
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/schemas", "POST /schemas"},
		{"POST", "/tables", "POST /tables"},
		{"GET", "/tables/orders", "GET /tables/{table}"},
		{"GET", "/segments/orders", "GET /segments/{table}"},
		{"POST", "/segments/orders/delete", "POST /segments/{table}/delete"},
		{"POST", "/segments/my%2Ftable/startReplaceSegments", "POST /segments/{table}/startReplaceSegments"},
		{"GET", "/segments/orders/lineage", "GET /segments/{table}/lineage"},
		{"POST", "/v2/segments", "POST /v2/segments"},
		{"GET", "/segments/orders/seg_0/metadata", "GET /segments/{table}/..."},
		{"GET", "/other/x/y/z", "GET /other/x/..."},
	} {
		if got := pinot.Endpoint(c.method, c.path); got != c.want {
			t.Errorf("Endpoint(%s %s) = %q, want %q", c.method, c.path, got, c.want)
		}
	}
}

type callRecorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *callRecorder) ControllerCall(endpoint string, _ time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := endpoint
	if err != nil {
		s += " error"
	}
	r.calls = append(r.calls, s)
}

// Every attempt is observed with its route template; a failed answer is an
// error; the table name, query strings and headers never reach the label.
func TestController_Observer(t *testing.T) {
	fails := 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fails > 0 {
			fails--
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"segments":[]}`))
	}))
	defer srv.Close()
	c, err := pinot.NewController(srv.URL, time.Second, map[string]string{"Authorization": "Basic c2VjcmV0"})
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = pinot.RetryPolicy{Attempts: 3, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}
	rec := &callRecorder{}
	c.Observer = rec
	_, _ = c.ListSegments(context.Background(), "orders_secret_table")
	got := strings.Join(rec.calls, ",")
	if !strings.HasPrefix(got, "GET /segments/{table} error,GET /segments/{table}") {
		t.Fatalf("observed %q", got)
	}
	if strings.Contains(got, "orders") || strings.Contains(got, "?") || strings.Contains(got, "c2VjcmV0") {
		t.Fatalf("label leaks: %q", got)
	}
}
