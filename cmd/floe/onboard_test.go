package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
)

func postJSON(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// The process wires the API to its catalog loader: a second table is
// onboarded over HTTP against the demo's connection and syncs.
func TestDemo_OnboardsTableThroughAPI(t *testing.T) {
	addr, dir := startDemo(t, 2*time.Second)
	waitSnapshot(t, addr, 0) // the server is up and the demo table synced
	base := "http://" + addr + "/api/v1"
	if code, out := postJSON(t, base+"/connections/demo/validate", ""); code != 200 || !strings.Contains(out, `"ok": true`) {
		t.Fatalf("validate: %d %s", code, out)
	}
	req := `{"connection":"demo","namespace":"demo","table":"events","name":"events_copy","schedule":"0 0 0 1 1 ?"}`
	code, out := postJSON(t, base+"/tables/preview", req[:strings.Index(req, `,"schedule"`)]+"}")
	if code != 200 || !strings.Contains(out, `"timeColumn": "ts"`) {
		t.Fatalf("preview: %d %s", code, out)
	}
	if code, out := postJSON(t, base+"/tables", req); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/tables/events_copy")
		if err != nil {
			t.Fatal(err)
		}
		var v demoTableView
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if v.LastRun != nil && v.LastRun.Status != checkpoint.RunRunning {
			if v.LastRun.Status != checkpoint.RunCompleted || v.LastRun.Rows < 200 || v.Checkpoint == nil {
				t.Fatalf("first run of the onboarded table: %+v", v.LastRun)
			}
			names, err := pinot.NewLocalDir(filepath.Join(dir, "segments")).ListSegments(context.Background(), "events_copy")
			if err != nil || len(names) == 0 {
				t.Fatalf("no segments pushed: %v %v", names, err)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the onboarded table's first run never finished")
}
