//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/watcher"
)

// serveCluster is several real `floe serve` processes sharing one
// redis-server, one SQL catalog on sqlite (the demo lake, demo.events)
// and one segment directory, as a Kubernetes Deployment of N pods would
// share one Redis.
type serveCluster struct {
	t     testing.TB
	lake  *demoLake
	addrs []string
	procs []*testpeer.Process
}

// newServeCluster builds floe, starts Redis and replicas processes with
// the given refresh interval, and registers the lake's connection.
func newServeCluster(t testing.TB, replicas int, refresh time.Duration) *serveCluster {
	t.Helper()
	redisURL := testpeer.StartRedis(t)
	bin := buildFloe(t)
	dir := t.TempDir()
	lake, err := openDemoLake(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lake.Close() })
	if _, err := lake.appendRows(context.Background(), 50); err != nil {
		t.Fatal(err)
	}
	c := &serveCluster{t: t, lake: lake}
	for i := range replicas {
		addr := "127.0.0.1:" + strconv.Itoa(testpeer.FreePort(t))
		p := testpeer.Start(t, testpeer.ProcessSpec{Name: fmt.Sprintf("floe-%c", 'a'+i), Cmd: bin, Args: []string{"serve"}, Dir: dir,
			Env: []string{"FLOE_CONFIG=", "FLOE_STORE_REDIS_URL=" + redisURL, "FLOE_SERVER_ADDR=" + addr,
				"FLOE_PINOT_SEGMENTDIR=" + filepath.Join(dir, "segments"),
				"FLOE_WATCHER_WORKDIR=" + filepath.Join(dir, fmt.Sprintf("work-%d", i)),
				"FLOE_WATCHER_OWNER=" + fmt.Sprintf("replica-%c", 'a'+i),
				"FLOE_WATCHER_REFRESHINTERVAL=" + refresh.String(),
				"FLOE_SECURITY_LOCALROOTS=" + dir, "FLOE_SECURITY_EGRESS_ALLOW=127.0.0.0/8,::1", "FLOE_WATCHER_MINSCHEDULEINTERVAL=1s"}})
		t.Cleanup(p.Stop)
		testpeer.WaitHTTP(t, "http://"+addr+"/healthz", 60*time.Second, nil)
		c.addrs, c.procs = append(c.addrs, addr), append(c.procs, p)
	}
	catalogPath, err := filepath.Abs(filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	c.must(0, "POST", "/api/v1/connections", map[string]any{"name": "demo", "type": "sql",
		"props": map[string]string{"uri": catalogPath, "catalog-name": demoCatalogName}}, http.StatusCreated, nil)
	return c
}

// call sends one request to replica i and decodes a JSON answer into out.
func (c *serveCluster) call(i int, method, path string, body, out any) (int, string, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, "", err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://"+c.addrs[i]+path, rd)
	if err != nil {
		return 0, "", err
	}
	if method != http.MethodGet {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err == nil && out != nil && resp.StatusCode < 300 {
		err = json.Unmarshal(raw, out)
	}
	return resp.StatusCode, string(raw), err
}

func (c *serveCluster) must(i int, method, path string, body any, want int, out any) {
	c.t.Helper()
	code, text, err := c.call(i, method, path, body, out)
	if err != nil || code != want {
		c.t.Fatalf("%s %s on replica %d: %d %s (%v), want %d", method, path, i, code, text, err, want)
	}
}

// create registers a table over demo.events through replica i.
func (c *serveCluster) create(i int, name, schedule string) {
	c.t.Helper()
	c.must(i, "POST", "/api/v1/tables", map[string]any{"connection": "demo", "namespace": "demo", "table": "events",
		"name": name, "schedule": schedule}, http.StatusCreated, nil)
}

func (c *serveCluster) status(i int, name string) (watcher.TableStatus, error) {
	var st watcher.TableStatus
	code, text, err := c.call(i, "GET", "/api/v1/tables/"+name+"/status", nil, &st)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("status of %s: %d %s", name, code, text)
	}
	return st, err
}

func (c *serveCluster) runs(name string) []checkpoint.Run {
	c.t.Helper()
	var out struct{ Runs []checkpoint.Run }
	c.must(0, "GET", "/api/v1/tables/"+name+"/runs?limit=100", nil, http.StatusOK, &out)
	return out.Runs
}

// appendEvery commits a snapshot to demo.events every period until the
// returned stop is called.
func (c *serveCluster) appendEvery(period time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if _, err := c.lake.appendRows(ctx, 20); err != nil && ctx.Err() == nil {
					c.t.Errorf("append a snapshot: %v", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

func waitUntil(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// I8, pauses: two replicas on one Redis, 10 tables synced
// every second from a table that gets a new snapshot every second; all 10
// paused through replica A. No run starts after a pause answered, on
// either replica, and replica B shows each table PAUSED without waiting
// for a refresh (its refresh interval is an hour: only the announced
// change can tell it).
func TestServe_PauseHoldsOnEveryReplica(t *testing.T) {
	c := newServeCluster(t, 2, time.Hour)
	var tables []string
	for i := range 10 {
		name := fmt.Sprintf("busy_%02d", i)
		tables = append(tables, name)
		c.create(0, name, "* * * * * ?")
		if _, err := c.status(1, name); err != nil { // B schedules it too, whatever else it hears
			t.Fatal(err)
		}
	}
	stop := c.appendEvery(time.Second)
	defer stop()
	waitUntil(t, "two completed runs of every table, and runs on both replicas", 90*time.Second, func() bool {
		owners := map[string]bool{}
		for _, name := range tables {
			runs := c.runs(name)
			if completed(runs) < 2 {
				return false
			}
			for _, r := range runs {
				owners[r.Owner] = true
			}
		}
		return owners["replica-a"] && owners["replica-b"]
	})

	answered := map[string]time.Time{}
	var mu sync.Mutex
	delays := map[string]time.Duration{}
	var wg sync.WaitGroup
	for _, name := range tables {
		c.must(0, "POST", "/api/v1/tables/"+name+"/pause", nil, http.StatusOK, nil)
		at := time.Now()
		answered[name] = at
		wg.Add(1)
		go func() {
			defer wg.Done()
			for deadline := at.Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				if st, err := c.status(1, name); err == nil && st.State == watcher.StatePaused {
					mu.Lock()
					delays[name] = time.Since(at)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	time.Sleep(4 * time.Second) // four more schedule periods and snapshots
	stop()

	for _, name := range tables {
		if _, ok := delays[name]; !ok {
			t.Errorf("replica B never showed %s as PAUSED (its refresh interval is an hour)", name)
		}
		for _, r := range c.runs(name) {
			if r.Status != checkpoint.RunSkipped && r.StartedAt.After(answered[name]) {
				t.Errorf("run %s of %s (%s, %s) started %s after its pause answered",
					r.ID, name, r.Owner, r.Status, r.StartedAt.Sub(answered[name]))
			}
		}
	}
	t.Logf("pause answered on A → PAUSED in B's status: %v", sortedDelays(delays))
}

func completed(runs []checkpoint.Run) int {
	n := 0
	for _, r := range runs {
		if r.Status == checkpoint.RunCompleted {
			n++
		}
	}
	return n
}

func sortedDelays(m map[string]time.Duration) []time.Duration {
	var out []time.Duration
	for _, d := range m {
		out = append(out, d.Round(100*time.Microsecond))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// I8, first runs: hundreds of tables registered one after the
// other on two replicas refreshing every 100 ms, each status read on the
// other replica right after its creation, as a page opening it would.
// Every table gets its first run, although each table's schedule is a
// year away.
func TestServe_RegistrationsAllGetTheirFirstRun(t *testing.T) {
	c := newServeCluster(t, 2, 100*time.Millisecond)
	const n = 300
	for i := range n {
		name := fmt.Sprintf("reg_%03d", i)
		c.create(i%2, name, "0 0 0 1 1 ?")
		if _, err := c.status(1-i%2, name); err != nil {
			t.Fatalf("status right after the create: %v", err)
		}
		c.must(i%2, "GET", "/api/v1/tables/"+name, nil, http.StatusOK, nil)
	}
	var missing []string
	waitUntil(t, fmt.Sprintf("the first run of all %d tables", n), 3*time.Minute, func() bool {
		var out struct {
			Tables []struct {
				Name       string
				Checkpoint *checkpoint.CheckpointSummary
			}
		}
		if code, _, err := c.call(0, "GET", "/api/v1/tables?pageSize=1000", nil, &out); err != nil || code != http.StatusOK {
			return false
		}
		missing = missing[:0]
		for _, tb := range out.Tables {
			if tb.Checkpoint == nil {
				missing = append(missing, tb.Name)
			}
		}
		return len(out.Tables) == n && len(missing) == 0
	})
	for i := range n {
		st, err := c.status(i%2, fmt.Sprintf("reg_%03d", i))
		if err != nil || !st.NextRun.After(time.Now()) {
			t.Errorf("status of reg_%03d after its first run: %+v (%v)", i, st, err)
		}
	}
}
