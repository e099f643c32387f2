//go:build integration

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher/plan"
)

// I2: a run SIGKILLed at any point, then restarted, converges to exactly the
// snapshot's rows with no duplicate, no orphan segment, no run left
// RUNNING and no work directory of a dead run. The kills land at observed
// moments (a run under way, a batch committed, the sink changing) and at
// random ones, across backfills (batched appends) and overwrites (atomic
// replaces), while the table keeps changing between kills.
func TestCrash_SIGKILLAnywhereConverges(t *testing.T) {
	seed := seedFromEnv(rand.Uint64())
	t.Logf("seed %d (replay with E2E_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	c := newCluster(t, settings{replicas: 1, leaseTTL: 2 * time.Second, batchFiles: 3, buildParallelism: 2,
		claimTimeout: 2 * time.Second, schedule: "* * * * * ?"})
	c.lake.appendFiles(16, 20_000)
	r := c.start(0)
	c.createTable(r, "events")
	phases := map[string]int{}
	const rounds = 8
	moments := []string{"build", "push", "swap", "commit", "plan", "sink", "random"}
	for round := range rounds {
		c.waitMomentNudged(r, "events", moments[round%len(moments)], rng)
		r.kill()
		phases[lastPhase(r)]++
		switch round % 4 {
		case 0, 2:
			c.lake.appendFiles(6, 20_000)
		case 1:
			c.lake.overwrite(150_000)
		case 3:
			c.lake.overwrite(120_000)
			c.lake.appendFiles(3, 20_000)
		}
		r = c.start(0)
	}
	c.assertConverged("events", 90*time.Second)
	t.Logf("kills by the phase the run was in: %v", phases)
	if mid := rounds - phases[""]; mid < rounds/2 {
		t.Fatalf("only %d of %d kills landed during a run (%v): the test did not exercise crashes mid-run", mid, rounds, phases)
	}
	if len(phases) < 4 {
		t.Fatalf("kills landed in only %d phases (%v), want several of plan/build/push/swap/commit", len(phases), phases)
	}
	c.assertAbandoned("events")
}

// I2 with merges (P10): a writer adds a small file or two per round while
// SIGKILLs land in runs that pack small segments together and replace
// them; the table converges to exactly the snapshot's rows with no orphan.
// Two more snapshots of one file each, synced one after the other, then
// leave no size tier with more than mergeSmallUnits units: without merges
// the last three runs alone would leave three units of one file each.
func TestCrash_SIGKILLDuringMergesConverges(t *testing.T) {
	seed := seedFromEnv(rand.Uint64())
	t.Logf("seed %d (replay with E2E_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	const mergeAt = 2
	c := newCluster(t, settings{replicas: 1, leaseTTL: 2 * time.Second, batchFiles: 3, buildParallelism: 2,
		claimTimeout: 2 * time.Second, schedule: "* * * * * ?", mergeSmallUnits: mergeAt})
	c.lake.appendFiles(2, 10_000)
	r := c.start(0)
	c.createTable(r, "events")
	phases := map[string]int{}
	const rounds = 6
	// Phases every run has, appending or merging (a merge swaps, an
	// append pushes); these runs are too short for a random moment.
	moments := []string{"build", "plan", "commit"}
	for round := range rounds {
		c.lake.appendFiles(1+round%2, 10_000)
		c.waitMoment(r, "events", moments[round%len(moments)], rng)
		r.kill()
		phases[lastPhase(r)]++
		r = c.start(0)
	}
	t.Logf("kills by the phase the run was in: %v", phases)
	if mid := rounds - phases[""]; mid < rounds/2 {
		t.Fatalf("only %d of %d kills landed during a run (%v): the test did not exercise crashes mid-run", mid, rounds, phases)
	}
	cp := c.waitConverged("events", 90*time.Second)
	for range 2 {
		c.lake.appendFiles(1, 10_000)
		cp = c.waitConverged("events", 30*time.Second)
	}
	c.assertExact("events", cp)
	c.assertNoDeadWorkDirs()
	c.assertNoLeftoverTemps()
	units := map[string]int64{} // unit → data file bytes
	for path, fs := range cp.Files {
		key := fs.Group
		if key == "" {
			key = path
		}
		units[key] += fs.SizeBytes
	}
	tiers := map[int]int{}
	for _, bytes := range units {
		tiers[plan.Tier(bytes, mergeAt)]++
	}
	for tier, n := range tiers {
		if n > mergeAt {
			t.Fatalf("size tier %d holds %d units (all tiers %v, %d segments for %d files): small segments were not merged",
				tier, n, tiers, len(c.served("events")), len(cp.Files))
		}
	}
	t.Logf("%d files in %d units, by size tier %v", len(cp.Files), len(units), tiers)
}

// I2 with remaps (watcher/plan P11): a compaction of every file is
// remapped, not rebuilt, also when the run that remaps it is SIGKILLed
// (at its plan, at its commit, or at a random moment): after the restart
// the table converges to exactly the snapshot's rows under the very
// segments Pinot served before the compaction, with no orphan. Appends
// between rounds put the next compaction over a remapped group and new
// files together.
func TestCrash_SIGKILLDuringRemapConverges(t *testing.T) {
	seed := seedFromEnv(rand.Uint64())
	t.Logf("seed %d (replay with E2E_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	c := newCluster(t, settings{replicas: 1, leaseTTL: 2 * time.Second, batchFiles: 3, buildParallelism: 2,
		claimTimeout: 2 * time.Second, schedule: "* * * * * ?"})
	c.lake.appendFiles(6, 5_000)
	r := c.start(0)
	c.createTable(r, "events")
	phases := map[string]int{}
	for round, moment := range []string{"plan", "commit", "random"} {
		if round > 0 {
			c.lake.appendFiles(2, 5_000)
		}
		c.waitConverged("events", 60*time.Second)
		before := c.served("events")
		c.lake.compact()
		c.waitMoment(r, "events", moment, rng)
		r.kill()
		phases[lastPhase(r)]++
		r = c.start(0)
		cp := c.waitConverged("events", 60*time.Second)
		c.assertExact("events", cp)
		if after := c.served("events"); !slices.Equal(after, before) {
			t.Fatalf("round %d: the compaction was rebuilt, not remapped: served %v, then %v", round, before, after)
		}
		if len(cp.Files) != 1 {
			t.Fatalf("round %d: the checkpoint holds %d files after compacting every file into one", round, len(cp.Files))
		}
	}
	c.assertNoDeadWorkDirs()
	t.Logf("kills by the phase the run was in: %v", phases)
}

// waitMoment waits for the moment of a kill: the run reaching a given
// phase (build, push, swap, commit, plan), the sink changing, or a random
// delay into the run. It reports false when the moment did not come: the
// run it saw ended first (or the process exited), or 8 s passed.
func (c *cluster) waitMoment(r *replica, table, target string, rng *rand.Rand) bool {
	before := c.manifest(table)
	deadline := time.Now().Add(8 * time.Second)
	running := false
	for time.Now().Before(deadline) {
		if exited, _ := r.proc.Exited(); exited { // a `floe sync` process that finished
			return false
		}
		switch target {
		case "sink":
			if !slices.Equal(c.manifest(table), before) {
				return true
			}
		case "random":
			if lastPhase(r) != "" {
				time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
				return true
			}
		default:
			if c.frozenIn(r, target) {
				return true
			}
		}
		phase := lastPhase(r)
		if running && phase == "" {
			return false // the run ended before the moment
		}
		running = running || phase != ""
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// waitMomentNudged is waitMoment that, when a run ends before the moment,
// changes the table so that another run comes (an overwrite for a swap,
// else an append), up to three times.
func (c *cluster) waitMomentNudged(r *replica, table, target string, rng *rand.Rand) {
	for try := 0; !c.waitMoment(r, table, target, rng) && try < 3; try++ {
		if target == "swap" {
			c.lake.overwrite(120_000)
		} else {
			c.lake.appendFiles(1, 20_000)
		}
	}
}

// frozenIn freezes r and reports whether its run is in phase; if so r
// stays frozen (the caller's kill lands in that phase, however briefly the
// phase lasts and however slowly a loaded machine lets the test read the
// log), else it is thawed.
func (c *cluster) frozenIn(r *replica, phase string) bool {
	if err := r.freeze(); err != nil {
		if c.exits(r, time.Second) { // a `floe sync` process that finished
			return false
		}
		c.t.Fatalf("freeze %s: %v", r.name, err)
	}
	if lastPhase(r) == phase {
		return true
	}
	if err := r.thaw(); err != nil && !c.exits(r, time.Second) {
		c.t.Fatalf("thaw %s: %v", r.name, err)
	}
	return false
}

// lastPhase is the phase of the replica's last run that has not finished
// ("" when no run was under way). It reads only what the process logged
// since the last call, and decodes only the lines that move the phase, so
// the tests can poll it every few milliseconds and still see phases that
// last a few milliseconds (plan, swap, commit) on a busy machine.
func lastPhase(r *replica) string {
	return r.phase.read(r.proc.LogPath)
}

// phaseTail follows the phase in one replica's log across calls.
type phaseTail struct {
	mu    sync.Mutex
	path  string // the log read so far (a restarted replica logs to a new file)
	off   int64  // bytes of complete lines read
	phase string
}

func (p *phaseTail) read(path string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if path != p.path {
		p.path, p.off, p.phase = path, 0, ""
	}
	f, err := os.Open(path)
	if err != nil {
		return p.phase
	}
	defer f.Close()
	raw, err := io.ReadAll(io.NewSectionReader(f, p.off, math.MaxInt64-p.off))
	if err != nil {
		return p.phase
	}
	end := bytes.LastIndexByte(raw, '\n') + 1 // a line still being written is read next time
	p.off += int64(end)
	for _, line := range bytes.Split(raw[:end], []byte{'\n'}) {
		p.apply(line)
	}
	return p.phase
}

// apply moves the phase by one log line.
func (p *phaseTail) apply(line []byte) {
	if !bytes.Contains(line, []byte(`"msg":"run phase"`)) && !bytes.Contains(line, []byte(`"msg":"sync `)) {
		return
	}
	var rec struct {
		Msg   string `json:"msg"`
		Phase string `json:"phase"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return
	}
	switch rec.Msg {
	case "run phase":
		p.phase = rec.Phase
	case "sync completed", "sync failed", "sync had nothing to do":
		p.phase = ""
	}
}

// assertAbandoned checks that the runs the kills interrupted are in the
// history as ABANDONED, never left RUNNING.
func (c *cluster) assertAbandoned(table string) {
	c.t.Helper()
	abandoned := 0
	for _, run := range c.runsOf(c.live(), table) {
		switch run.Status {
		case checkpoint.RunRunning:
			c.t.Errorf("run %s still RUNNING", run.ID)
		case checkpoint.RunAbandoned:
			abandoned++
		}
	}
	if abandoned == 0 {
		c.t.Error("no interrupted run was marked ABANDONED")
	}
}

// I2 for `floe sync` processes on the embedded store and on Redis, whose
// runs plan from the store's index of the file map (checkpoint C14, plan
// P14) and read the whole map only when the plan needs it: SIGKILLs land
// at observed and random moments of
// sync processes while the table gains small files (merged, P10), has
// its files overwritten (merged units dropped: a run that reads the whole
// map) and is compacted (a remap: the whole map too). A sync run to
// completion then leaves exactly the snapshot's rows, no orphan segment,
// no run RUNNING and nothing of a dead run in the work directory or the
// sink; an append after it plans from the index again.
func TestCrash_SIGKILLSyncProcessesConverge(t *testing.T) {
	for _, store := range []string{"embedded", "redis"} {
		t.Run(store, func(t *testing.T) { sigkillSyncProcesses(t, store == "embedded") })
	}
}

func sigkillSyncProcesses(t *testing.T, embedded bool) {
	seed := seedFromEnv(rand.Uint64())
	t.Logf("seed %d (replay with E2E_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	c := newCluster(t, settings{replicas: 1, leaseTTL: 2 * time.Second, batchFiles: 3, buildParallelism: 2,
		claimTimeout: 2 * time.Second, schedule: "0 0 0 1 1 ?", mergeSmallUnits: 3, embedded: embedded})
	c.lake.appendFiles(12, 20_000)
	r := c.start(0)
	c.createTable(r, "events")
	c.waitConverged("events", 60*time.Second)
	r.proc.Stop() // the embedded store is one process's at a time; on Redis, only the syncs run
	phases := map[string]int{}
	moments := []string{"plan", "build", "push", "commit", "swap", "sink", "random"}
	const rounds = 10
	indexed := 0 // runs that planned from the store's file index
	for round := range rounds {
		switch round {
		case 8:
			c.lake.compact()
		case 2, 7:
			c.lake.overwrite(100_000)
		default:
			c.lake.appendFiles(1+rng.IntN(2), 20_000)
		}
		r.proc = c.startProcess(r, "sync", "-table", "events")
		c.waitMoment(r, "events", moments[round%len(moments)], rng)
		phases[lastPhase(r)]++
		r.kill()
		indexed += len(r.logLines(`"msg":"plan read the checkpoint from the store's file index"`))
		for _, l := range r.logLines(`"msg":"plan reads the whole checkpoint"`) {
			t.Logf("round %d: %s", round, l)
		}
	}
	c.syncUntilDone(r, "events", 60*time.Second)
	c.lake.appendFiles(1, 20_000) // an append after it all plans from the index again
	c.syncUntilDone(r, "events", 60*time.Second)
	if len(r.logLines(`"msg":"plan read the checkpoint from the store's file index"`)) != 1 {
		t.Fatalf("the append after the kills did not plan from the file index (P14): %v",
			r.logLines(`"msg":"plan reads the whole checkpoint"`))
	}
	c.start(0) // for its API; the table's schedule starts no run before the checks
	c.assertConverged("events", 30*time.Second)
	c.assertAbandoned("events")
	t.Logf("kills by the phase the run was in: %v; %d killed runs planned from the file index", phases, indexed)
	if mid := rounds - phases[""]; mid < rounds/2 {
		t.Fatalf("only %d of %d kills landed during a run (%v): the test did not exercise crashes mid-run", mid, rounds, phases)
	}
	if indexed == 0 {
		t.Fatalf("none of %d killed runs planned from the file index (P14)", rounds)
	}
}

// exits reports whether r's process exits within timeout.
func (c *cluster) exits(r *replica, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if exited, _ := r.proc.Exited(); exited {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// syncUntilDone runs `floe sync` of table as replica r until one exits
// successfully, or fails the test after timeout.
func (c *cluster) syncUntilDone(r *replica, table string, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r.proc = c.startProcess(r, "sync", "-table", table)
		for {
			if exited, err := r.proc.Exited(); exited {
				if err == nil {
					return
				}
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("no floe sync of %s succeeded within %s", table, timeout)
}
