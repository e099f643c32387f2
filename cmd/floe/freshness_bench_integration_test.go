//go:build integration

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
)

// Freshness benchmark settings: a writer appends freshRows rows every
// freshEvery, freshCommits times; floe syncs on freshSchedule.
const (
	freshRows     = 100_000
	freshEvery    = 20 * time.Second
	freshCommits  = 10
	freshSchedule = "0/5 * * * * ?"
	freshPeriod   = 5 * time.Second // freshSchedule's period
	freshTable    = "fresh"
	// freshNotifySchedule is the schedule of the notification mode: floe's
	// default, every 5 minutes, the backstop.
	freshNotifySchedule = "0 */5 * * * ?"
)

// BenchmarkServe_Freshness measures commit → queryable: one `floe serve`
// (Redis store, a Pinot 0.11 cluster as the sink, the table on a 5-second
// schedule) while a writer commits an append of 100,000 rows to an
// iceberg-go table every 20 seconds, 10 times. Each commit is timed from
// its snapshot's timestamp-ms to the first answer of the cluster's broker
// that counts its rows (the broker is asked back to back), and split into
// the wait for the run (schedule), the run, and Pinot making the pushed
// segment visible; each run is split into its phases from floe's debug
// "run phase" log lines: prepare (lease, table record, table metadata,
// checkpoint, schema), plan, build, push, commit. It logs one row per
// commit and reports the percentiles; scripts/bench-freshness.sh writes
// them to docs/benchmarks.md. Run it with -benchtime 1x.
func BenchmarkServe_Freshness(b *testing.B) { benchFreshness(b, false) }

// BenchmarkServe_FreshnessNotify is BenchmarkServe_Freshness in the
// notification mode: the table keeps floe's default 5-minute schedule and
// the writer announces each commit through the webhook
// (POST /api/v1/tables/{name}/notify), as an Iceberg REST catalog or a CI
// job would; floe's debounce (500 ms) and the run follow. The wait for
// the run is then the debounce and the notification's path, not the
// schedule.
func BenchmarkServe_FreshnessNotify(b *testing.B) { benchFreshness(b, true) }

func benchFreshness(b *testing.B, notify bool) {
	f := newFreshness(b, notify)
	b.ResetTimer()
	commits := f.write()
	b.StopTimer()
	f.probe.stop()
	runs := f.runs()
	phases := f.phases()
	var fresh, run []time.Duration
	for i, c := range commits {
		seen, ok := f.probe.firstAtLeast(int64(i+1) * freshRows)
		if !ok {
			b.Fatalf("commit %d (snapshot %d): the broker never counted its rows", i+1, c.snapshot)
		}
		r, ok := runs[c.snapshot]
		if !ok {
			b.Fatalf("commit %d: no run synced snapshot %d", i+1, c.snapshot)
		}
		p := phases[r.ID]
		fresh, run = append(fresh, seen.Sub(c.at)), append(run, r.FinishedAt.Sub(r.StartedAt))
		b.Logf("commit: | %s | %d | %s | %.1f | %.1f | %.1f | %.1f | %s |", f.mode(), i+1, r.Trigger, secs(seen.Sub(c.at)), secs(r.StartedAt.Sub(c.at)),
			secs(r.FinishedAt.Sub(r.StartedAt)), secs(seen.Sub(r.FinishedAt)), p.split(r))
	}
	p50, p95 := percentile(fresh, 0.5), percentile(fresh, 0.95)
	b.ReportMetric(float64(len(fresh)), "commits")
	b.ReportMetric(secs(p50), "fresh-p50-s")
	b.ReportMetric(secs(p95), "fresh-p95-s")
	b.ReportMetric(secs(percentile(run, 0.5)), "run-p50-s")
	b.ReportMetric(secs(percentile(run, 0.95)), "run-p95-s")
	b.ReportMetric(float64(f.probe.queries()), "queries")
}

// mode names the benchmark's mode in its report lines.
func (f *freshness) mode() string {
	if f.notify {
		return "notification, 5-min schedule"
	}
	return "5-s schedule"
}

type freshness struct {
	b      *testing.B
	notify bool // announce each commit (notification mode)
	lake   *demoLake
	proc   *testpeer.Process
	addr   string
	probe  *countProbe
}

// newFreshness starts Redis, a Pinot cluster and floe serve, registers
// the table and waits for its first run.
func newFreshness(b *testing.B, notify bool) *freshness {
	b.Helper()
	redisURL := testpeer.StartRedis(b)
	cluster := testpeer.StartPinot(b)
	bin := buildFloe(b)
	dir := b.TempDir()
	lake, err := openDemoLake(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lake.Close() })
	f := &freshness{b: b, notify: notify, lake: lake, addr: "127.0.0.1:" + strconv.Itoa(testpeer.FreePort(b))}
	f.proc = testpeer.Start(b, testpeer.ProcessSpec{Name: "floe", Cmd: bin, Args: []string{"serve"}, Dir: dir,
		Env: []string{"FLOE_CONFIG=", "FLOE_STORE_REDIS_URL=" + redisURL, "FLOE_SERVER_ADDR=" + f.addr,
			"FLOE_PINOT_CONTROLLERURL=" + cluster.ControllerURL, "FLOE_WATCHER_WORKDIR=" + filepath.Join(dir, "work"),
			"FLOE_WATCHER_OWNER=bench", "FLOE_LOG_LEVEL=debug", "FLOE_LOG_FORMAT=json",
			"FLOE_SECURITY_LOCALROOTS=" + dir, "FLOE_SECURITY_EGRESS_ALLOW=127.0.0.0/8,::1", "FLOE_WATCHER_MINSCHEDULEINTERVAL=1s"}})
	b.Cleanup(f.proc.Stop)
	testpeer.WaitHTTP(b, "http://"+f.addr+"/healthz", 60*time.Second, nil)
	c := &serveCluster{t: b, lake: lake, addrs: []string{f.addr}, procs: []*testpeer.Process{f.proc}}
	catalogPath, err := filepath.Abs(filepath.Join(dir, "catalog.db"))
	if err != nil {
		b.Fatal(err)
	}
	c.must(0, "POST", "/api/v1/connections", map[string]any{"name": "demo", "type": "sql",
		"props": map[string]string{"uri": catalogPath, "catalog-name": demoCatalogName}}, 201, nil)
	schedule := freshSchedule
	if notify {
		schedule = freshNotifySchedule
	}
	c.create(0, freshTable, schedule)
	waitUntil(b, "the table's first run", 60*time.Second, func() bool { return completed(c.runs(freshTable)) > 0 })
	broker := pinot.NewBroker(cluster.BrokerURL, 10*time.Second, nil)
	broker.NullHandling = false // Pinot 0.11 refuses enableNullHandling
	f.probe = startProbe(broker)
	return f
}

// commit is one append the writer made.
type commit struct {
	snapshot int64
	at       time.Time // the snapshot's timestamp-ms
}

// write commits freshCommits appends, freshEvery apart, then waits until
// the broker counts every row. Each commit is moved by a random part of
// the schedule's period (seeded, so every run draws the same): commits
// exactly freshEvery apart would all fall at one phase of the 5-second
// schedule and measure one waiting time over and over.
func (f *freshness) write() []commit {
	ctx := f.b.Context()
	var out []commit
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	for i := range freshCommits {
		time.Sleep(time.Until(start.Add(time.Duration(i)*freshEvery + time.Duration(rng.Int64N(int64(freshPeriod))))))
		id, err := f.lake.appendRows(ctx, freshRows)
		if err != nil {
			f.b.Fatalf("commit %d: %v", i+1, err)
		}
		if f.notify {
			c := &serveCluster{t: f.b, addrs: []string{f.addr}}
			c.must(0, "POST", "/api/v1/tables/"+freshTable+"/notify", map[string]string{"metadataLocation": f.lake.metadata},
				http.StatusAccepted, nil)
		}
		tbl, err := f.lake.cat.LoadTable(ctx, f.lake.ident)
		if err != nil {
			f.b.Fatal(err)
		}
		out = append(out, commit{snapshot: id, at: time.UnixMilli(tbl.SnapshotByID(id).TimestampMs)})
	}
	waitUntil(f.b, "every row on the broker", 2*time.Minute, func() bool {
		_, ok := f.probe.firstAtLeast(freshCommits * freshRows)
		return ok
	})
	return out
}

// runs returns the table's runs by the snapshot they synced.
func (f *freshness) runs() map[int64]checkpoint.Run {
	c := &serveCluster{t: f.b, addrs: []string{f.addr}}
	out := map[int64]checkpoint.Run{}
	for _, r := range c.runs(freshTable) {
		if r.Status == checkpoint.RunCompleted && r.SnapshotID != 0 && r.SegmentsGenerated > 0 {
			out[r.SnapshotID] = r
		}
	}
	return out
}

// runPhases are when a run entered each phase, from floe's log.
type runPhases map[string]time.Time

// phases reads the "run phase" lines of floe's JSON log: plan, build and
// commit carry the run id; push lines name the unit, and belong to the run
// that entered build last.
func (f *freshness) phases() map[string]runPhases {
	file, err := os.Open(f.proc.LogPath)
	if err != nil {
		f.b.Fatal(err)
	}
	defer file.Close()
	out := map[string]runPhases{}
	last := ""
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Time  time.Time `json:"time"`
			Msg   string    `json:"msg"`
			Table string    `json:"table"`
			Run   string    `json:"run_id"`
			Phase string    `json:"phase"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "run phase" || line.Table != freshTable {
			continue
		}
		run := line.Run
		if run == "" {
			run = last
		}
		if line.Phase == "build" {
			last = run
		}
		if out[run] == nil {
			out[run] = runPhases{}
		}
		if _, seen := out[run][line.Phase]; !seen {
			out[run][line.Phase] = line.Time
		}
	}
	return out
}

// split renders the run's phases in seconds: prepare, plan, build, push,
// commit.
func (p runPhases) split(r checkpoint.Run) string {
	marks := []time.Time{r.StartedAt, p["plan"], p["build"], p["push"], p["commit"], r.FinishedAt}
	parts := make([]string, 0, len(marks)-1)
	for i := 1; i < len(marks); i++ {
		if marks[i].IsZero() || marks[i-1].IsZero() {
			parts = append(parts, "–")
			continue
		}
		parts = append(parts, fmt.Sprintf("%.2f", secs(marks[i].Sub(marks[i-1]))))
	}
	return strings.Join(parts, " | ")
}

// countProbe counts the table on the broker back to back and remembers
// when each count first showed.
type countProbe struct {
	mu     sync.Mutex
	first  map[int64]time.Time
	n      int
	cancel context.CancelFunc
	done   chan struct{}
}

func startProbe(b *pinot.Broker) *countProbe {
	ctx, cancel := context.WithCancel(context.Background())
	p := &countProbe{first: map[int64]time.Time{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for ctx.Err() == nil {
			rt, err := b.Query(ctx, "SELECT count(*) FROM "+freshTable)
			at := time.Now()
			if err != nil || len(rt.Rows) != 1 || len(rt.Rows[0]) != 1 {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			n, err := strconv.ParseInt(fmt.Sprint(rt.Rows[0][0]), 10, 64)
			if err != nil {
				continue
			}
			p.mu.Lock()
			p.n++
			if _, ok := p.first[n]; !ok {
				p.first[n] = at
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// firstAtLeast is when the broker first answered a count of at least n.
func (p *countProbe) firstAtLeast(n int64) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best time.Time
	for count, at := range p.first {
		if count >= n && (best.IsZero() || at.Before(best)) {
			best = at
		}
	}
	return best, !best.IsZero()
}

func (p *countProbe) queries() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

func (p *countProbe) stop() {
	p.cancel()
	<-p.done
}

func secs(d time.Duration) float64 { return d.Seconds() }

// percentile is the nearest-rank percentile of ds.
func percentile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}
