//go:build integration

package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/segments/read"
)

// outageClientTimeout bounds every request of the outage test: a frozen
// store used to hold /healthz for 10s and /api/v1/tables for 5s.
const outageClientTimeout = 3 * time.Second

// outagePhase is one way the checkpoint store goes away.
type outagePhase struct {
	name  string
	begin func(*testpeer.RedisServer)
	end   func(*testpeer.RedisServer)
}

// A real redis-server under floe serve is stopped, then frozen (SIGSTOP).
// During each outage the API answers 503 with Retry-After naming the
// store, within a second rather than hanging; afterwards it answers again
// by itself, and the demo table converges on the newest snapshot. Neither
// answers nor logs hold the Redis password.
func TestServe_StoreOutage(t *testing.T) {
	const redisPassword = "redis-pw-8e7d6c5b4a39"
	rs := testpeer.StartRedisServer(t, redisPassword)
	e := startServed(t, func(c *config.Config) { c.Store.Redis.URL = rs.URL })
	e.snapshotID0()
	var said strings.Builder
	get := func(path string) (int, http.Header, string, time.Duration) {
		t.Helper()
		start := time.Now()
		code, h, body := e.doTimeout(outageClientTimeout, "GET", path, nil, "")
		said.WriteString(body)
		return code, h, body, time.Since(start)
	}
	phases := []outagePhase{
		{"stopped", (*testpeer.RedisServer).Stop, (*testpeer.RedisServer).Start},
		{"frozen", (*testpeer.RedisServer).Freeze, (*testpeer.RedisServer).Thaw},
	}
	for _, ph := range phases {
		if _, err := e.lake.appendRows(t.Context(), 50); err != nil { // a run is due while the store goes away
			t.Fatal(err)
		}
		running := unfinishedRuns(e.runs()) // runs the outage may meet mid-write
		began := time.Now()
		ph.begin(rs)
		for _, path := range []string{"/healthz", "/api/v1/tables", "/api/v1/tables/" + demoTable,
			"/api/v1/tables/" + demoTable + "/runs", "/api/v1/connections"} {
			code, h, body, took := get(path)
			if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(body, rs.Addr) {
				t.Errorf("%s, GET %s: %d (Retry-After %q) %s; want 503 naming redis at %s", ph.name, path, code,
					h.Get("Retry-After"), body, rs.Addr)
			}
			t.Logf("%s: GET %s answered %d in %s", ph.name, path, code, took.Round(time.Millisecond))
		}
		// /metrics reads no store (metrics M1): it answers, and counts the store's failed calls.
		if code, _, body, _ := get("/metrics"); code != http.StatusOK || !strings.Contains(body, "\nfloe_up 1\n") ||
			!strings.Contains(body, "floe_store_errors_total{") {
			t.Errorf("%s, GET /metrics: %d, want 200 with floe_up and the store's errors:\n%s", ph.name, code, body)
		}
		if code, _, body := e.doTimeout(outageClientTimeout, "POST", "/api/v1/tables/"+demoTable+"/pause", nil, ""); code != http.StatusServiceUnavailable {
			t.Errorf("%s, pause: %d %s", ph.name, code, body)
		}
		// Several scheduled runs meet the outage (3s: /metrics, which reads no store, no longer waits out a
		// store timeout in the loop above, so the outage lasts as long as it did when it did).
		time.Sleep(3 * time.Second)
		ended := time.Now()
		ph.end(rs)
		checkRecovered(t, e, ph.name)
		checkOutageRuns(t, e, ph.name, began, ended, running)
	}
	e.appendAndSync()
	checkNoRunLeftRunning(t, e)
	assertDemoExact(t, e)
	if s := said.String() + e.logs.String(); strings.Contains(s, redisPassword) {
		t.Fatal("the Redis password leaked into an answer or the log")
	}
}

// checkRecovered waits until the API answers again by itself after an
// outage and shows the table with its checkpoint.
func checkRecovered(t *testing.T, e *servedEnv, phase string) {
	t.Helper()
	waitAnswers(t, e, "/api/v1/tables")
	code, _, body := e.doTimeout(outageClientTimeout, "GET", "/api/v1/tables/"+demoTable, nil, "")
	var v demoTableView
	if err := json.Unmarshal([]byte(body), &v); code != http.StatusOK || err != nil || v.Checkpoint == nil {
		t.Fatalf("%s, after the outage: %d %s", phase, code, body)
	}
}

// checkOutageRuns waits until the history holds a run of the outage: one
// under way during it that failed (buffered while the store was away,
// written when it came back, with its real times and error), or one that
// was under way when the store went away and finished after it came back
// (a frozen store may hold a run's call until it thaws rather than fail
// it), or one the history showed RUNNING just before the outage that
// ended while its last record write was held by the store (its finish
// time then falls a moment before the outage began; the record arrives
// after). A run of the outage that stays RUNNING is caught by
// checkNoRunLeftRunning.
func checkOutageRuns(t *testing.T, e *servedEnv, phase string, began, ended time.Time, running map[string]bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		failed, rode := 0, 0
		for _, r := range e.runs() {
			switch {
			case r.StartedAt.Before(ended) && !r.FinishedAt.Before(began) && r.Status == checkpoint.RunFailed && r.Error != "":
				failed++
			case r.StartedAt.Before(ended) && r.FinishedAt.After(ended) && r.Status == checkpoint.RunCompleted:
				rode++
			case running[r.ID] && r.Status != checkpoint.RunRunning:
				rode++
			}
		}
		if failed+rode > 0 {
			t.Logf("%s: %d failed runs of the outage recorded after it, %d runs waited it out", phase, failed, rode)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no run of the outage (%s to %s) in the history: %+v", phase, began.Format(time.StampMilli),
				ended.Format(time.StampMilli), e.runs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// unfinishedRuns is the IDs of the runs shown RUNNING.
func unfinishedRuns(runs []checkpoint.Run) map[string]bool {
	out := map[string]bool{}
	for _, r := range runs {
		if r.Status == checkpoint.RunRunning {
			out[r.ID] = true
		}
	}
	return out
}

// checkNoRunLeftRunning checks that no run stays RUNNING once the table
// has synced again (a run the outage cut ends FAILED).
func checkNoRunLeftRunning(t *testing.T, e *servedEnv) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var running []checkpoint.Run
		for _, r := range e.runs() {
			if r.Status == checkpoint.RunRunning && time.Since(r.StartedAt) > 5*time.Second {
				running = append(running, r)
			}
		}
		if len(running) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs left RUNNING after the outage: %+v", running)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runs reads the demo table's run history from the API.
func (e *servedEnv) runs() []checkpoint.Run {
	e.t.Helper()
	code, _, body := e.doTimeout(outageClientTimeout, "GET", "/api/v1/tables/"+demoTable+"/runs?limit=100", nil, "")
	var out struct {
		Runs []checkpoint.Run `json:"runs"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil {
		e.t.Fatalf("runs: %d %s", code, body)
	}
	return out.Runs
}

// assertDemoExact checks that the served segments hold exactly the demo
// table's rows (I2) after the outages.
func assertDemoExact(t *testing.T, e *servedEnv) {
	t.Helper()
	want := icebergRows(t, e.dir)
	names, err := pinot.NewLocalDir(filepath.Join(e.dir, "segments")).ListSegments(t.Context(), demoTable)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]int{}
	for _, n := range names {
		seg, err := read.Open(filepath.Join(e.dir, "segments", demoTable, n+".tar.gz"))
		if err != nil {
			t.Fatal(err)
		}
		col, err := seg.ReadColumn("id")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range col.Values {
			got[v.(int64)]++
		}
	}
	if len(got) != len(want) {
		t.Fatalf("served segments hold %d ids, Iceberg %d rows", len(got), len(want))
	}
	for id, n := range got {
		if _, ok := want[id]; !ok || n != 1 {
			t.Fatalf("id %d served %d times (in Iceberg: %v)", id, n, ok)
		}
	}
}

// waitAnswers polls path until it answers 200 (the store is back).
func waitAnswers(t *testing.T, e *servedEnv, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _, body := e.doTimeout(outageClientTimeout, "GET", path, nil, "")
		if code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s after the outage: still %d %s", path, code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
