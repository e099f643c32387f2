//go:build integration

package e2e

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/tools/bench/report"
)

// D1–D4 with real processes: two `floe serve` replicas on one Redis, a
// backfill under way on one of them. SIGTERM to the lease holder: it stops
// its run at a safe point within watcher.drainGrace, records it FAILED
// naming the drain, releases the lease (gone from Redis, or the other
// replica's, the moment the holder has exited: not left to expire) and
// exits 0; the other replica takes the table on its next schedule tick and
// the table converges to exactly the snapshot's rows. Then the same with
// SIGKILL: the other replica waits out the TTL, and the killed run is
// marked ABANDONED with the reason; restarted, it clears the work the
// kill left. Every ABANDONED record is that one.
// With E2E_DRAIN_REPORT set to docs/benchmarks.md the takeover times are
// written there (make bench-drain).
func TestDrain_SIGTERMHandsTheTableOver(t *testing.T) {
	const ttl = 10 * time.Second
	c := newCluster(t, settings{replicas: 2, leaseTTL: ttl, batchFiles: 2, buildParallelism: 1,
		claimTimeout: 2 * time.Second, schedule: "* * * * * ?", drainGrace: 300 * time.Millisecond})
	c.lake.appendFiles(30, 20_000)
	c.startAll()
	c.createTable(c.replicas[0], "events")

	holder, other := c.waitBuilding("events")
	sent := time.Now()
	if err := holder.proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.waitExit(holder, 15*time.Second)
	exited := time.Since(sent)
	c.assertLeaseNotHeldBy("events", holder.name)
	termRun := c.waitRunAfter(other, "events", sent, 30*time.Second)
	termTakeover := termRun.StartedAt.Sub(sent)
	drained := c.runOf(holder, "events")
	if drained.Status != checkpoint.RunFailed || !strings.Contains(drained.Error, "draining") {
		if drained.Status != checkpoint.RunCompleted {
			t.Fatalf("the drained replica's run is %s (%q), want FAILED naming the drain (or COMPLETED)", drained.Status, drained.Error)
		}
	}
	cp := c.waitConverged("events", 120*time.Second)
	c.assertExact("events", cp)

	// SIGKILL the new holder mid-run; the restarted first replica takes over.
	c.start(indexOf(c.replicas, holder))
	c.lake.appendFiles(30, 20_000)
	victim, survivor := c.waitBuilding("events")
	sent = time.Now()
	victim.kill()
	killRun := c.waitRunAfter(survivor, "events", sent, 60*time.Second)
	killTakeover := killRun.StartedAt.Sub(sent)
	t.Logf("takeover after SIGTERM %s (holder exited after %s), after SIGKILL %s (lease TTL %s)",
		termTakeover.Round(time.Millisecond), exited.Round(time.Millisecond), killTakeover.Round(time.Millisecond), ttl)
	c.start(indexOf(c.replicas, victim)) // cleans up the work the kill left
	cp = c.waitConverged("events", 120*time.Second)
	c.assertExact("events", cp)
	c.assertNoDeadWorkDirs()
	c.assertAbandonedOnly("events", victim.name)
	if path := os.Getenv("E2E_DRAIN_REPORT"); path != "" {
		if err := report.Update(path, drainBlock(), drainReport(termTakeover, exited, killTakeover, ttl)); err != nil {
			t.Fatal(err)
		}
	}
}

// waitBuilding waits until one replica's run of the table is building
// segments and returns it and the other replica.
func (c *cluster) waitBuilding(table string) (holder, other *replica) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		for i, r := range c.replicas {
			if lastPhase(r) == "build" {
				return r, c.replicas[1-i]
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.t.Fatalf("no replica started building %s", table)
	return nil, nil
}

// waitExit waits for r's process to end and fails unless it exited 0.
func (c *cluster) waitExit(r *replica, timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if exited, err := r.proc.Exited(); exited {
			if err != nil {
				c.t.Fatalf("%s exited with %v after SIGTERM, want 0", r.name, err)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Fatalf("%s still running %s after SIGTERM", r.name, timeout)
}

// waitRunAfter waits for a run of the table by replica r that started
// after t and returns it once it is recorded.
func (c *cluster) waitRunAfter(r *replica, table string, t time.Time, timeout time.Duration) checkpoint.Run {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, run := range c.runsOf(r, table) {
			if run.Owner == r.name && run.StartedAt.After(t) && run.Status != checkpoint.RunSkipped {
				return run
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("%s started no run of %s within %s", r.name, table, timeout)
	return checkpoint.Run{}
}

// runOf returns the newest run of the table by replica r (read through a
// live replica).
func (c *cluster) runOf(r *replica, table string) checkpoint.Run {
	c.t.Helper()
	for _, run := range c.runsOf(c.live(r), table) {
		if run.Owner == r.name && run.Status != checkpoint.RunSkipped {
			return run
		}
	}
	c.t.Fatalf("no run of %s by %s", table, r.name)
	return checkpoint.Run{}
}

// assertAbandonedOnly checks that no run is RUNNING and that every
// ABANDONED run is one of owner's, with the reason recorded.
func (c *cluster) assertAbandonedOnly(table, owner string) {
	c.t.Helper()
	n := 0
	for _, run := range c.runsOf(c.live(), table) {
		switch {
		case run.Status == checkpoint.RunRunning:
			c.t.Errorf("run %s of %s still RUNNING", run.ID, run.Owner)
		case run.Status == checkpoint.RunAbandoned && (run.Owner != owner || !strings.Contains(run.Error, owner)):
			c.t.Errorf("run %s of %s ABANDONED (%q): only the SIGKILLed %s may leave one", run.ID, run.Owner, run.Error, owner)
		case run.Status == checkpoint.RunAbandoned:
			n++
		}
	}
	if n == 0 {
		c.t.Errorf("the SIGKILLed run of %s was not marked ABANDONED", owner)
	}
}

func indexOf(rs []*replica, r *replica) int {
	for i, x := range rs {
		if x == r {
			return i
		}
	}
	return -1
}

func drainBlock() report.Block {
	return report.Block{Begin: "<!-- bench-drain:begin -->", End: "<!-- bench-drain:end -->",
		Section: "## Takeover after SIGTERM and after SIGKILL\n\n" +
			"`make bench-drain` (`TestDrain_SIGTERMHandsTheTableOver` in `internal/e2e`) starts two `floe serve` processes on\n" +
			"one `redis-server`, a lease TTL of 10 s, `watcher.drainGrace` 300 ms and a one-second schedule, and backfills a\n" +
			"30-file table. While one replica builds, it gets SIGTERM: it stops its run at a safe point, releases the lease\n" +
			"and exits; the time is measured until the other replica's next run of the table starts. Then the new holder\n" +
			"gets SIGKILL mid-run, and the survivor must wait out the lease TTL. Both runs end with exactly the snapshot's\n" +
			"rows."}
}

func drainReport(term, exited, kill, ttl time.Duration) string {
	return strings.Join([]string{drainBlock().Begin,
		fmt.Sprintf("Last run: %s, %d CPUs shared with other work.", time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU()),
		"",
		"| stop | holder exited after | other replica's run started after | lease TTL |",
		"|---|---:|---:|---:|",
		fmt.Sprintf("| SIGTERM (drain) | %.2f s | %.2f s | %s |", exited.Seconds(), term.Seconds(), ttl),
		fmt.Sprintf("| SIGKILL | at once | %.2f s | %s |", kill.Seconds(), ttl),
		drainBlock().End, ""}, "\n")
}

// assertLeaseNotHeldBy fails when owner still holds the table's lease in
// Redis (D3: a drained replica releases it, never leaves it to expire).
func (c *cluster) assertLeaseNotHeldBy(table, owner string) {
	c.t.Helper()
	opts, err := redis.ParseURL(c.redisURL)
	if err != nil {
		c.t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	h, err := rdb.HGetAll(context.Background(), "e2e:v1:lease:"+table).Result()
	if err != nil {
		c.t.Fatal(err)
	}
	if h["owner"] == owner {
		c.t.Fatalf("D3: %s exited but still holds the lease of %s (token %s): it was left to expire", owner, table, h["token"])
	}
}
