//go:build integration

package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/testpeer"
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
		ph.begin(rs)
		for _, path := range []string{"/healthz", "/api/v1/tables", "/api/v1/tables/" + demoTable,
			"/api/v1/tables/" + demoTable + "/runs", "/api/v1/connections", "/metrics"} {
			code, h, body, took := get(path)
			if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(body, rs.Addr) {
				t.Errorf("%s, GET %s: %d (Retry-After %q) %s; want 503 naming redis at %s", ph.name, path, code,
					h.Get("Retry-After"), body, rs.Addr)
			}
			t.Logf("%s: GET %s answered %d in %s", ph.name, path, code, took.Round(time.Millisecond))
		}
		if code, _, body := e.doTimeout(outageClientTimeout, "POST", "/api/v1/tables/"+demoTable+"/pause", nil, ""); code != http.StatusServiceUnavailable {
			t.Errorf("%s, pause: %d %s", ph.name, code, body)
		}
		ph.end(rs)
		checkRecovered(t, e, ph.name)
	}
	e.appendAndSync()
	if s := said.String() + e.logs.String(); strings.Contains(s, redisPassword) {
		t.Fatal("the Redis password leaked into an answer or the log")
	}
}

// checkRecovered waits until the API answers again by itself after an
// outage and shows the table with its checkpoint. (What the watcher
// recorded during the outage, runs and their states, is checked beside
// this by the watcher's tests of the same outage.)
func checkRecovered(t *testing.T, e *servedEnv, phase string) {
	t.Helper()
	waitAnswers(t, e, "/api/v1/tables")
	code, _, body := e.doTimeout(outageClientTimeout, "GET", "/api/v1/tables/"+demoTable, nil, "")
	var v demoTableView
	if err := json.Unmarshal([]byte(body), &v); code != http.StatusOK || err != nil || v.Checkpoint == nil {
		t.Fatalf("%s, after the outage: %d %s", phase, code, body)
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
