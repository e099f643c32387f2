package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/segments/read"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

type demoTableView struct {
	Checkpoint *checkpoint.CheckpointSummary `json:"checkpoint"`
	LastRun    *checkpoint.Run               `json:"lastRun"`
}

// getTableAuth reads the demo table, sending token when not empty.
func getTableAuth(addr, token string) (demoTableView, error) {
	var v demoTableView
	req, err := http.NewRequest("GET", "http://"+addr+"/api/v1/tables/"+demoTable, nil)
	if err != nil {
		return v, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v, err
}

// runOf waits for the run that synced snapshot to be recorded as
// finished and returns it. The checkpoint commits before the run's record
// is closed, and the newest run may already be the next one, under way.
func runOf(t *testing.T, addr string, snapshot int64) checkpoint.Run {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var runs []checkpoint.Run
	for time.Now().Before(deadline) {
		runs = listRuns(t, addr)
		for _, r := range runs {
			if r.SnapshotID == snapshot && r.Status != checkpoint.RunRunning {
				return r
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no finished run synced snapshot %d: %+v", snapshot, runs)
	return checkpoint.Run{}
}

// listRuns reads the demo table's run history.
func listRuns(t *testing.T, addr string) []checkpoint.Run {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/tables/" + demoTable + "/runs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Runs []checkpoint.Run `json:"runs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Runs
}

// waitSnapshot polls the API until the checkpoint holds a snapshot other
// than not.
func waitSnapshot(t *testing.T, addr string, not int64) demoTableView {
	t.Helper()
	return waitSnapshotAuth(t, addr, not, "")
}

// waitSnapshotAuth is waitSnapshot against an API that asks for token.
func waitSnapshotAuth(t *testing.T, addr string, not int64, token string) demoTableView {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		v, err := getTableAuth(addr, token)
		if err == nil && v.Checkpoint != nil && v.Checkpoint.SnapshotID != 0 && v.Checkpoint.SnapshotID != not {
			return v
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no new snapshot synced (still %d)", not)
	return demoTableView{}
}

// startDemo runs the demo in the background, appending a snapshot every
// interval, and returns its address and data directory; the demo stops
// when the test ends.
func startDemo(t *testing.T, interval time.Duration) (string, string) {
	t.Helper()
	return startDemoWith(t, interval, nil)
}

// startDemoWith is startDemo with a hook that may change the configuration.
func startDemoWith(t *testing.T, interval time.Duration, edit func(*config.Config)) (string, string) {
	t.Helper()
	dir := t.TempDir()
	addr := freeAddr(t)
	o := demoOptions{dataDir: dir, addr: addr, interval: interval, rows: 200, schedule: "* * * * * ?"}
	cfg := config.Default()
	cfg.Server.Addr = addr
	cfg.Store.Path = filepath.Join(dir, "floe.db")
	cfg.Pinot.SegmentDir = filepath.Join(dir, "segments")
	cfg.Watcher.WorkDir = filepath.Join(dir, "work")
	if edit != nil {
		edit(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDemo(ctx, cfg, o, newLogger(cfg.Log, io.Discard), io.Discard) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("demo stopped with %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("demo did not stop within 30s")
		}
	})
	return addr, dir
}

// The demo syncs its first snapshot at once and then each appended one,
// writing real segment tarballs that floe's own reader opens.
func TestDemo_SyncsSnapshots(t *testing.T) {
	addr, dir := startDemo(t, 2*time.Second)
	first := waitSnapshot(t, addr, 0)
	if run := runOf(t, addr, first.Checkpoint.SnapshotID); run.Status != checkpoint.RunCompleted {
		t.Fatalf("the run that synced the first snapshot: %+v", run)
	}
	second := waitSnapshot(t, addr, first.Checkpoint.SnapshotID)
	if second.Checkpoint.FileCount < 2 {
		t.Fatalf("second snapshot should hold 2+ files, got %d", second.Checkpoint.FileCount)
	}
	names, err := pinot.NewLocalDir(filepath.Join(dir, "segments")).ListSegments(context.Background(), demoTable)
	if err != nil || len(names) < 2 {
		t.Fatalf("served segments %v: %v", names, err)
	}
	var rows int64
	for _, n := range names {
		seg, err := read.Open(filepath.Join(dir, "segments", demoTable, n+".tar.gz"))
		if err != nil {
			t.Fatalf("open segment %s: %v", n, err)
		}
		rows += int64(seg.TotalDocs)
	}
	if rows < 400 || rows%200 != 0 {
		t.Fatalf("segments hold %d rows, want a multiple of 200 (one append each), at least 400", rows)
	}
}

// TestDemoConfig_honoursConfigAndEnv: floe demo reads the configuration
// serve reads (-config, then FLOE_* variables), so a local root added
// there reaches the demo; the demo's own paths and -addr fill only what
// that configuration leaves at the default.
func TestDemoConfig_honoursConfigAndEnv(t *testing.T) {
	dir := t.TempDir()
	extra := t.TempDir()
	path := filepath.Join(dir, "floe.yaml")
	if err := os.WriteFile(path, []byte("security:\n  localRoots: ["+extra+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FLOE_LOG_LEVEL", "debug")
	data := filepath.Join(dir, "data")
	cfg, err := demoConfig(path, demoOptions{dataDir: data, addr: "127.0.0.1:18080"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cfg.Security.LocalRoots, extra) || cfg.Log.Level != "debug" {
		t.Errorf("config file and FLOE_* ignored: localRoots %v, log level %q", cfg.Security.LocalRoots, cfg.Log.Level)
	}
	if cfg.Server.Addr != "127.0.0.1:18080" || cfg.Store.Path != filepath.Join(data, "floe.db") ||
		cfg.Pinot.SegmentDir != filepath.Join(data, "segments") {
		t.Errorf("demo defaults not applied: addr %q, store %q, segments %q", cfg.Server.Addr, cfg.Store.Path, cfg.Pinot.SegmentDir)
	}
	// -addr decides before the configuration is checked: an image's
	// environment that serves 0.0.0.0 without a token does not stop the demo.
	t.Setenv("FLOE_SERVER_ADDR", "0.0.0.0:8080")
	if cfg, err = demoConfig("", demoOptions{dataDir: data, addr: "127.0.0.1:18082"}); err != nil || cfg.Server.Addr != "127.0.0.1:18082" {
		t.Errorf("-addr over FLOE_SERVER_ADDR=0.0.0.0:8080: %q, %v", cfg.Server.Addr, err)
	}
	t.Setenv("FLOE_SERVER_ADDR", "127.0.0.1:18081")
	if cfg, err = demoConfig("", demoOptions{dataDir: data}); err != nil || cfg.Server.Addr != "127.0.0.1:18081" {
		t.Errorf("FLOE_SERVER_ADDR without -addr: %q, %v", cfg.Server.Addr, err)
	}
}
