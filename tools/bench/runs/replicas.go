package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/floehq/floe/tools/bench/lake"
)

// scaling is one backfill by n replicas.
type scaling struct {
	replicas int
	wall     time.Duration
	builders map[string]int
}

// measureReplicas backfills the same table with one replica and with
// three sharing one Redis.
func measureReplicas(ctx context.Context, o options, log io.Writer) ([]scaling, error) {
	var out []scaling
	for _, n := range []int{1, 3} {
		dir := filepath.Join(o.dir, fmt.Sprintf("replicas-%d", n))
		lk, err := lake.Build(ctx, dir, o.replicaFiles, 50, o.rows)
		if err != nil {
			return nil, err
		}
		s, err := backfillWith(ctx, o, dir, lk, n)
		lk.Close()
		if err != nil {
			return nil, fmt.Errorf("%d replicas: %w", n, err)
		}
		fmt.Fprintf(log, "runbench: %d replicas: %s (%v)\n", n, s.wall.Round(time.Millisecond), s.builders)
		out = append(out, s)
	}
	return out, nil
}

// backfillWith starts Redis and n `floe serve` replicas, registers the
// table and waits until its first sync has committed the snapshot.
func backfillWith(ctx context.Context, o options, dir string, lk *lake.Lake, n int) (scaling, error) {
	redisAddr, stopRedis, err := startProcess(ctx, dir, "redis", o.redisServer, func(port int) []string {
		return []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no"}
	})
	if err != nil {
		return scaling{}, err
	}
	defer stopRedis()
	var addrs []string
	for i := range n {
		cfg := filepath.Join(dir, fmt.Sprintf("replica-%d.yaml", i))
		addr, stop, err := startProcess(ctx, dir, fmt.Sprintf("replica-%d", i), o.floe, func(port int) []string {
			return []string{"serve", "-config", cfg}
		}, func(port int) error {
			return os.WriteFile(cfg, []byte(replicaConfig(o, dir, lk, i, port, redisAddr)), 0o600)
		})
		if err != nil {
			return scaling{}, err
		}
		defer stop()
		addrs = append(addrs, addr)
	}
	start := time.Now()
	if err := post(addrs[0], "/api/v1/tables", map[string]any{"connection": "lake", "namespace": "bench",
		"table": "events", "name": "events", "schedule": "0 0 0 1 1 ?"}); err != nil {
		return scaling{}, err
	}
	want, err := currentSnapshot(ctx, lk)
	if err != nil {
		return scaling{}, err
	}
	if err := waitSnapshot(ctx, addrs[0], want, 10*time.Minute); err != nil {
		return scaling{}, err
	}
	s := scaling{replicas: n, wall: time.Since(start), builders: map[string]int{}}
	s.builders, err = builders(addrs[0])
	return s, err
}

func replicaConfig(o options, dir string, lk *lake.Lake, i, port int, redisAddr string) string {
	return fmt.Sprintf(`server:
  addr: 127.0.0.1:%d
store:
  redis:
    url: redis://%s/0
pinot:
  segmentDir: %s
watcher:
  owner: replica-%d
  workDir: %s
  buildParallelism: %d
  batchFiles: %d
  coalesceBelowBytes: 0
  leaseTTL: 30s
security:
  localRoots: [%s]
  egress:
    allow: [127.0.0.0/8, "::1"]
log:
  level: warn
connections:
  lake:
    type: sql
    props:
      uri: %s
      catalog-name: %s
`, port, redisAddr, filepath.Join(dir, "sink"), i, filepath.Join(dir, "work"), o.parallelism, o.batchFiles,
		filepath.Dir(lk.DB), lk.DB, lake.CatalogName)
}

// startProcess runs bin with the args for a free port, waits until the
// port accepts connections and returns its address and a stop func.
func startProcess(ctx context.Context, dir, name, bin string, args func(port int) []string, before ...func(port int) error) (string, func(), error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	for _, f := range before {
		if err := f(port); err != nil {
			return "", nil, err
		}
	}
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, bin, args(port)...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = logf, logf, dir
	if err := cmd.Start(); err != nil {
		logf.Close()
		return "", nil, fmt.Errorf("start %s: %w", name, err)
	}
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("%s did not listen on %s (log %s)", name, addr, logf.Name())
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func post(addr, path string, body any) error {
	raw, _ := json.Marshal(body)
	resp, err := http.Post("http://"+addr+path, "application/json", bytes.NewReader(raw))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("POST %s: HTTP %d: %s", path, resp.StatusCode, msg)
	}
	return nil
}

func getJSON(addr, path string, out any) error {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func currentSnapshot(ctx context.Context, lk *lake.Lake) (int64, error) {
	tbl, err := lk.Load(ctx)
	if err != nil {
		return 0, err
	}
	return tbl.CurrentSnapshot().SnapshotID, nil
}

// waitSnapshot polls the checkpoint until it holds snapshot want.
func waitSnapshot(ctx context.Context, addr string, want int64, timeout time.Duration) error {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var cp struct {
			Summary struct {
				SnapshotID int64           `json:"snapshotId"`
				Backfill   json.RawMessage `json:"backfill"`
			} `json:"summary"`
		}
		if getJSON(addr, "/api/v1/tables/events/checkpoint?pageSize=1", &cp) == nil && cp.Summary.SnapshotID == want &&
			len(cp.Summary.Backfill) == 0 {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("snapshot %d not committed within %s", want, timeout)
}

// builders sums the units each replica built over the table's runs.
func builders(addr string) (map[string]int, error) {
	var out struct {
		Runs []struct {
			Builders map[string]int `json:"builders"`
		} `json:"runs"`
	}
	if err := getJSON(addr, "/api/v1/tables/events/runs?limit=100", &out); err != nil {
		return nil, err
	}
	sum := map[string]int{}
	for _, r := range out.Runs {
		for b, n := range r.Builders {
			sum[b] += n
		}
	}
	return sum, nil
}
