package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/internal/config"
)

// API tokens of the served tests.
const (
	testAdminToken = "adm-7c1f9e2b4d6a8c0e"
	testReadToken  = "rd-3b5d7f9a1c2e4f6a"
)

// syncBuffer collects log output written from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// servedEnv is a whole floe process in the test: the demo lake and table,
// the embedded store, segments in a directory, API tokens, debug logs in
// a buffer, and the API served on a loopback port.
type servedEnv struct {
	t    *testing.T
	dir  string
	addr string
	lake *demoLake
	app  *app
	srv  *api.Server
	logs *syncBuffer
}

// startServed starts floe with the demo table synced every second; edit
// may change the configuration first.
func startServed(t *testing.T, edit func(*config.Config)) *servedEnv {
	t.Helper()
	ctx := context.Background()
	e := &servedEnv{t: t, dir: t.TempDir(), addr: freeAddr(t), logs: &syncBuffer{}}
	lake, err := openDemoLake(ctx, e.dir)
	if err != nil {
		t.Fatal(err)
	}
	e.lake = lake
	t.Cleanup(func() { lake.Close() })
	if _, err := lake.appendRows(ctx, 100); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Server.Addr = e.addr
	cfg.Server.AdminTokens = []string{testAdminToken}
	cfg.Server.ReadTokens = []string{testReadToken}
	cfg.Store.Path = filepath.Join(e.dir, "floe.db")
	cfg.Pinot.SegmentDir = filepath.Join(e.dir, "segments")
	cfg.Watcher.WorkDir = filepath.Join(e.dir, "work")
	cfg.Watcher.RefreshInterval = time.Second
	cfg.Security.LocalRoots = []string{e.dir}
	cfg.Security.Egress.Allow = loopbackEgress() // every peer of the tests listens on loopback
	cfg.Log.Level = "debug"
	if edit != nil {
		edit(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logger := newLogger(cfg.Log, e.logs)
	a, err := newApp(ctx, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := registerDemo(ctx, a, demoOptions{dataDir: e.dir, schedule: "* * * * * ?"}); err != nil {
		_ = a.Close(ctx)
		t.Fatal(err)
	}
	srvCtx, cancel := context.WithCancel(ctx)
	srv, err := a.serve(srvCtx, cfg.Server.Addr)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	e.app, e.srv = a, srv
	t.Cleanup(func() {
		cancel()
		if err := shutdown(a, srv, a.log); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if t.Failed() {
			t.Logf("floe logs:\n%s", tail(e.logs.String(), 200))
		}
	})
	return e
}

func tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

// hdr is a request's headers: by default the admin token and JSON; a key
// with the value "-" is left out.
type hdr map[string]string

// do sends one request to the served API.
func (e *servedEnv) do(method, path string, h hdr, body string) (int, http.Header, string) {
	e.t.Helper()
	return e.doTimeout(30*time.Second, method, path, h, body)
}

// doTimeout is do with a client timeout: an answer that takes longer
// fails the test.
func (e *servedEnv) doTimeout(timeout time.Duration, method, path string, h hdr, body string) (int, http.Header, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, "http://"+e.addr+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	def := hdr{"Authorization": "Bearer " + testAdminToken, "Content-Type": "application/json"}
	for k, v := range h {
		def[k] = v
	}
	for k, v := range def {
		switch {
		case v == "-":
		case strings.EqualFold(k, "Host"):
			req.Host = v
		default:
			req.Header.Set(k, v)
		}
	}
	client := &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// jsonBody encodes v.
func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshotID is the demo table's checkpointed snapshot (0: none yet).
func (e *servedEnv) snapshotID() int64 {
	cp, err := e.app.store.GetCheckpointSummary(context.Background(), demoTable)
	if err != nil {
		return 0
	}
	return cp.SnapshotID
}

// waitSynced waits until the demo table's checkpoint holds want.
func (e *servedEnv) waitSynced(want int64) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if e.snapshotID() == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("snapshot %d never synced (checkpoint at %d)", want, e.snapshotID())
}

// appendAndSync appends a snapshot to the demo lake and waits until floe
// has synced it: the table keeps syncing.
func (e *servedEnv) appendAndSync() {
	e.t.Helper()
	id, err := e.lake.appendRows(context.Background(), 50)
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitSynced(id)
}
