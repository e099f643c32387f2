package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/buildinfo"
	"github.com/floehq/floe/watcher"
)

// /healthz is the readiness check: 200 while the store answers, 503
// "draining" once Drain was called; /livez stays 200 throughout, and the
// API keeps answering requests while the process drains.
func TestServer_DrainProbes(t *testing.T) {
	store := checkpoint.NewMemory()
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}}, watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	s := api.New(store, w, nil, nil, "v-test")
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	for _, path := range []string{"/healthz", "/livez"} {
		if code, body := call(t, "GET", srv.URL+path); code != http.StatusOK || !strings.Contains(body, `"ok"`) {
			t.Fatalf("%s before drain: %d %s", path, code, body)
		}
	}
	s.Drain()
	if code, body := call(t, "GET", srv.URL+"/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, `"draining"`) {
		t.Fatalf("/healthz while draining: %d %s, want 503 draining", code, body)
	}
	if code, body := call(t, "GET", srv.URL+"/livez"); code != http.StatusOK || !strings.Contains(body, `"draining"`) {
		t.Fatalf("/livez while draining: %d %s, want 200 draining", code, body)
	}
	if code, body := call(t, "GET", srv.URL+"/api/v1/tables"); code != http.StatusOK {
		t.Fatalf("the API stops answering while draining: %d %s", code, body)
	}
}

// The store being down fails readiness, not liveness.
func TestServer_LivenessReadsNoStore(t *testing.T) {
	store := checkpoint.NewMemory()
	s := api.New(downStore{store}, nil, nil, nil, "v-test")
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	if code, body := call(t, "GET", srv.URL+"/healthz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/healthz with the store down: %d %s, want 503", code, body)
	}
	if code, body := call(t, "GET", srv.URL+"/livez"); code != http.StatusOK {
		t.Fatalf("/livez with the store down: %d %s, want 200", code, body)
	}
}

// GET /version answers the build information it was given, open to all.
func TestServer_Version(t *testing.T) {
	want := buildinfo.Info{Version: "v1.2.3", Commit: "abc", Date: "2026-12-03T00:00:00Z", GoVersion: "go1.26.8", Platform: "linux/amd64"}
	s := api.New(checkpoint.NewMemory(), nil, nil, nil, "v1.2.3", api.Options{Build: want, AdminTokens: []string{"tok"}})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	code, body := call(t, "GET", srv.URL+"/version")
	var got buildinfo.Info
	if code != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || got != want {
		t.Fatalf("/version: %d %s, want %+v", code, body, want)
	}
}

// downStore is a store whose every table read fails, as Redis gone away.
type downStore struct{ checkpoint.Store }

func (downStore) ListTables(context.Context) ([]checkpoint.Table, error) {
	return nil, errors.New("dial tcp 127.0.0.1:6379: connection refused")
}
