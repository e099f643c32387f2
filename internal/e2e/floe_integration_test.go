//go:build integration

package e2e

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floehq/floe/internal/testpeer"
)

// settings are the knobs of one scenario's replicas.
type settings struct {
	replicas         int
	leaseTTL         time.Duration
	batchFiles       int
	buildParallelism int
	claimTimeout     time.Duration
	schedule         string
	// mergeSmallUnits, when set, turns coalescing on (files under 8 MiB)
	// with merges of that many small units (P10); otherwise every file is
	// a unit of its own.
	mergeSmallUnits int
	// pinot, when set, is the sink instead of a local directory.
	pinot *testpeer.PinotCluster
	// drainGrace is watcher.drainGrace (0: floe's default).
	drainGrace time.Duration
	// lagInterval is watcher.lagInterval (0: floe's default, 30 s).
	lagInterval time.Duration
	// embedded, when set, gives the replicas the embedded store (one
	// bbolt file, one process at a time) instead of the redis-server.
	embedded bool
}

// cluster is a set of `floe serve` replicas sharing one redis-server, one
// key prefix and one segment sink directory.
type cluster struct {
	t        *testing.T
	bin      string
	redisURL string
	sink     string
	work     string
	db       string // the embedded store's file (settings.embedded)
	lake     *lake
	set      settings
	replicas []*replica
}

// replica is one `floe serve` process (restartable under the same name).
type replica struct {
	name     string
	addr     string
	redisURL string
	proc     *testpeer.Process
	// bin is the floe binary it runs ("": the cluster's, this tree's).
	bin string
	// phase follows its log for lastPhase.
	phase phaseTail
}

func newCluster(t *testing.T, set settings) *cluster {
	t.Helper()
	c := &cluster{t: t, bin: testpeer.BuildFloe(t), sink: t.TempDir(),
		work: t.TempDir(), db: filepath.Join(t.TempDir(), "floe.db"), lake: newLake(t), set: set}
	if !set.embedded {
		c.redisURL = testpeer.StartRedis(t)
	}
	for i := range set.replicas {
		c.replicas = append(c.replicas, &replica{name: fmt.Sprintf("replica-%d", i), redisURL: c.redisURL})
	}
	return c
}

// config is the YAML configuration of replica r.
func (c *cluster) config(r *replica) string {
	return fmt.Sprintf(`server:
  addr: %s
store:
%s
pinot:
  segmentDir: %s
  controllerURL: %q
watcher:
  owner: %s
  leaseTTL: %s
  refreshInterval: 300ms
  workDir: %s
  batchFiles: %d
  buildParallelism: %d
  maxConcurrentRuns: 2
  claimTimeout: %s
  coalesceBelowBytes: %d
  mergeSmallUnits: %d
  defaultSchedule: %q
  minScheduleInterval: 1s
  drainGrace: %s
  lagInterval: %s
security:
  localRoots: [%s]
  egress:
    allow: [127.0.0.0/8, "::1"]
log:
  level: debug
  format: json
connections:
  lake:
    type: sql
    props:
      uri: %s
      catalog-name: %s
`, r.addr, c.storeConfig(r), c.sink, c.controllerURL(), r.name, c.set.leaseTTL, c.work, c.set.batchFiles, c.set.buildParallelism,
		c.set.claimTimeout, c.coalesceBelowBytes(), c.set.mergeSmallUnits, c.set.schedule, cmp.Or(c.set.drainGrace, 20*time.Second),
		cmp.Or(c.set.lagInterval, 30*time.Second),
		filepath.Dir(c.lake.db), c.lake.db,
		catalogName)
}

// storeConfig is the store section of replica r's configuration.
func (c *cluster) storeConfig(r *replica) string {
	if c.set.embedded {
		return "  path: " + c.db
	}
	return fmt.Sprintf("  redis:\n    url: %s\n    keyPrefix: \"e2e:\"", r.redisURL)
}

// coalesceBelowBytes is the scenario's watcher.coalesceBelowBytes.
func (c *cluster) coalesceBelowBytes() int64 {
	if c.set.mergeSmallUnits > 0 {
		return 8 << 20
	}
	return 0
}

// controllerURL is the Pinot controller of the scenario ("" for the local
// sink).
func (c *cluster) controllerURL() string {
	if c.set.pinot == nil {
		return ""
	}
	return c.set.pinot.ControllerURL
}

// start (re)starts replica i and waits until its API answers.
func (c *cluster) start(i int) *replica {
	c.t.Helper()
	r := c.replicas[i]
	r.proc = c.startProcess(r, "serve")
	testpeer.WaitHTTP(c.t, "http://"+r.addr+"/healthz", 60*time.Second, nil)
	return r
}

// startProcess starts floe with args as replica r, with r's configuration
// (on a new API port).
func (c *cluster) startProcess(r *replica, args ...string) *testpeer.Process {
	c.t.Helper()
	r.addr = "127.0.0.1:" + strconv.Itoa(testpeer.FreePort(c.t))
	dir := c.t.TempDir()
	cfg := filepath.Join(dir, "floe.yaml")
	if err := os.WriteFile(cfg, []byte(c.config(r)), 0o600); err != nil {
		c.t.Fatal(err)
	}
	return testpeer.Start(c.t, testpeer.ProcessSpec{Name: r.name + "-" + args[0], Cmd: cmp.Or(r.bin, c.bin),
		Args: append(args, "-config", cfg), Dir: dir})
}

// startAll starts every replica.
func (c *cluster) startAll() {
	for i := range c.replicas {
		c.start(i)
	}
}

// live returns a running replica (one not killed or frozen by the test).
func (c *cluster) live(except ...*replica) *replica {
	for _, r := range c.replicas {
		if r.proc == nil || containsReplica(except, r) {
			continue
		}
		if exited, _ := r.proc.Exited(); !exited {
			return r
		}
	}
	c.t.Fatal("no live replica")
	return nil
}

func containsReplica(rs []*replica, r *replica) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func (r *replica) kill()         { r.proc.Kill() }
func (r *replica) freeze() error { return r.proc.Signal(syscall.SIGSTOP) }
func (r *replica) thaw() error   { return r.proc.Signal(syscall.SIGCONT) }

// createTable registers ns.events as table name through replica r.
func (c *cluster) createTable(r *replica, name string) {
	c.t.Helper()
	body := map[string]any{"connection": "lake", "namespace": "ns", "table": "events", "name": name, "schedule": c.set.schedule}
	var out map[string]any
	if code := r.call(c.t, http.MethodPost, "/api/v1/tables", body, &out); code != http.StatusCreated {
		c.t.Fatalf("create table %s: HTTP %d %v", name, code, out)
	}
}

// call sends a JSON request to the replica's API and decodes the answer
// into out; it returns the status code (0 when the replica did not answer).
func (r *replica) call(t *testing.T, method, path string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, "http://"+r.addr+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && len(raw) > 0 {
		_ = json.Unmarshal(raw, out)
	}
	return resp.StatusCode
}

// logLines returns the replica's log lines that contain every one of subs.
func (r *replica) logLines(subs ...string) []string {
	raw, err := os.ReadFile(r.proc.LogPath)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(line, s)
		}
		if ok && line != "" {
			out = append(out, line)
		}
	}
	return out
}
